import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/storage/sqlite/open-sqlite.js";
import {
  bareLoop,
  createAgentWithMiddleware,
  opspilotGraph,
  opspilotRuntime,
  prebuiltReactAgent,
  type Peer,
  type PeerSetup,
} from "./peers.js";
import { checkpointerValueBytes } from "./sqlite-bytes.js";
import { Meter, mean, median, round, wrapMethods } from "./stats.js";
import { newStepClock, scriptedRunModel, stepTimes, type PayloadSize } from "./workload.js";

/** How the per-step benchmark runs. */
export interface StepCostOptions {
  /** Tool-calling steps per run (each run ends with one more model turn that answers). */
  steps: number;
  /** Timed runs per peer and payload. */
  runs: number;
  /** Untimed runs per peer and payload before the timed ones. */
  warmups: number;
  /** Payload sizes to measure. */
  payloads: PayloadSize[];
}

/** Medians over the timed runs of one peer on one payload. */
export interface PeerResult {
  peer: string;
  payload: PayloadSize;
  /** Whole run time (wall clock) divided by the tool-calling steps. */
  msPerStep: number;
  /** Process CPU time of the run divided by the steps: less disturbed by other processes on a shared machine. */
  cpuMsPerStep: number;
  /** Fastest and slowest run, per step. */
  minMsPerStep: number;
  maxMsPerStep: number;
  /** Mean loop time (wall) of steps 1–5 and of the last five steps. */
  first5Ms: number;
  last5Ms: number;
  /** The same in process CPU time. */
  first5CpuMs: number;
  last5CpuMs: number;
  /** In the SqliteSaver (put, putWrites, getTuple), per step. */
  checkpointerMsPerStep: number;
  /** Checkpointer calls per step (one `put` per superstep). */
  checkpointerCallsPerStep: number;
  /** Bytes left in the checkpointer's tables after the run (checkpoints, metadata, pending writes), per step. */
  checkpointKbPerStep: number;
  /** In opspilot's storage (journal, raw results, events, leases, records, compaction), per step. */
  storageMsPerStep: number;
  runs: number;
  /** Wall and CPU ms per step of every timed run, in round order (round i of every peer ran back to back). */
  perRunMsPerStep: number[];
  perRunCpuMsPerStep: number[];
}

const CHECKPOINTER_METHODS = ["put", "putWrites", "getTuple"];
// appendEvent goes through appendEvents, so only the latter is timed; compactThread deletes the saver's superseded rows.
const STORAGE_METHODS = [
  "createThread",
  "threadOwner",
  "setThreadTitle",
  "getEntry",
  "startEntry",
  "finishEntry",
  "saveResult",
  "appendEvents",
  "acquireLease",
  "renewLease",
  "releaseLease",
  "leaseHolder",
  "cancelRequested",
  "saveRunLimits",
  "runLimits",
  "usageOn",
  "recordRunStart",
  "recordStep",
  "recordToolCalls",
  "recordRunEnd",
  "compactThread",
];

function peersFor(setup: PeerSetup): Peer[] {
  const peers = [bareLoop(setup), prebuiltReactAgent(setup), createAgentWithMiddleware(setup), opspilotGraph(setup)];
  // With small outputs the cap never applies, so the raised-cap variant would repeat opspilot_graph.
  if (setup.payload !== "small") peers.push(opspilotGraph(setup, 64_000));
  peers.push(opspilotRuntime(setup), opspilotRuntime(setup, false));
  return peers;
}

interface Sample {
  totalMs: number;
  cpuMs: number;
  steps: number[];
  cpuSteps: number[];
  checkpointerMs: number;
  checkpointerCalls: number;
  checkpointBytes: number;
  storageMs: number;
}

/** Bytes in the checkpointer's tables so far, whatever tables it keeps. */
function checkpointBytes(setup: PeerSetup): number {
  return checkpointerValueBytes(setup.backend.db);
}

async function timeRun(peer: Peer, setup: PeerSetup, meter: Meter): Promise<Sample> {
  const clock = newStepClock();
  const execute = peer.prepare(scriptedRunModel(setup.steps, clock));
  meter.reset();
  const bytesBefore = checkpointBytes(setup);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const check = await execute();
  const totalMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (check.toolResults !== setup.steps || !check.answered) {
    throw new Error(
      `${peer.name} did not do the scripted work: ${check.toolResults}/${setup.steps} tool results, answered=${check.answered}`,
    );
  }
  return {
    totalMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    steps: stepTimes(clock.stamps),
    cpuSteps: stepTimes(clock.cpuStamps),
    checkpointerMs: meter.ms("checkpointer"),
    checkpointerCalls: meter.calls("checkpointer"),
    checkpointBytes: checkpointBytes(setup) - bytesBefore,
    storageMs: meter.ms("storage"),
  };
}

function summarize(peer: string, payload: PayloadSize, steps: number, samples: Sample[]): PeerResult {
  const perStep = samples.map((sample) => sample.totalMs / steps);
  const cpuPerStep = samples.map((sample) => sample.cpuMs / steps);
  return {
    peer,
    payload,
    msPerStep: round(median(perStep)),
    cpuMsPerStep: round(median(cpuPerStep)),
    minMsPerStep: round(Math.min(...perStep)),
    maxMsPerStep: round(Math.max(...perStep)),
    first5Ms: round(median(samples.map((sample) => mean(sample.steps.slice(0, 5))))),
    last5Ms: round(median(samples.map((sample) => mean(sample.steps.slice(-5))))),
    first5CpuMs: round(median(samples.map((sample) => mean(sample.cpuSteps.slice(0, 5))))),
    last5CpuMs: round(median(samples.map((sample) => mean(sample.cpuSteps.slice(-5))))),
    checkpointerMsPerStep: round(median(samples.map((sample) => sample.checkpointerMs / steps))),
    checkpointerCallsPerStep: round(median(samples.map((sample) => sample.checkpointerCalls / steps)), 1),
    checkpointKbPerStep: round(median(samples.map((sample) => sample.checkpointBytes / 1024 / steps)), 1),
    storageMsPerStep: round(median(samples.map((sample) => sample.storageMs / steps))),
    runs: samples.length,
    perRunMsPerStep: perStep.map((value) => round(value)),
    perRunCpuMsPerStep: cpuPerStep.map((value) => round(value)),
  };
}

/** Measures one payload size: every peer on the same SQLite file, runs interleaved in rotating order. */
async function measurePayload(
  payload: PayloadSize,
  options: StepCostOptions,
  directory: string,
): Promise<PeerResult[]> {
  const backend = openSqlite(join(directory, `step-cost-${payload}.sqlite`));
  try {
    // The saver creates its tables on first use; the byte count reads them before any peer ran.
    await backend.checkpointer.getTuple({ configurable: { thread_id: "bench-setup" } });
    const meter = new Meter();
    wrapMethods(backend.checkpointer, CHECKPOINTER_METHODS, meter, "checkpointer");
    wrapMethods(backend.storage, STORAGE_METHODS, meter, "storage");
    const setup: PeerSetup = { backend, payload, steps: options.steps };
    const peers = peersFor(setup);
    const samples = new Map<string, Sample[]>(peers.map((peer) => [peer.name, []]));
    for (let pass = 0; pass < options.warmups + options.runs; pass += 1) {
      // Rotating the order spreads the cost of a growing database file and of GC over every peer.
      const order = peers.map((_, i) => peers[(i + pass) % peers.length]!);
      for (const peer of order) {
        const sample = await timeRun(peer, setup, meter);
        if (pass >= options.warmups) samples.get(peer.name)!.push(sample);
      }
    }
    return peers.map((peer) => summarize(peer.name, payload, options.steps, samples.get(peer.name)!));
  } finally {
    backend.close();
  }
}

/** Runs the per-step loop benchmark of design §10 for every payload size. */
export async function runStepCost(
  options: StepCostOptions,
  onProgress: (line: string) => void = () => {},
): Promise<PeerResult[]> {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-bench-"));
  try {
    const results: PeerResult[] = [];
    for (const payload of options.payloads) {
      const started = performance.now();
      results.push(...(await measurePayload(payload, options, directory)));
      onProgress(`step cost, ${payload} outputs: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    return results;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
