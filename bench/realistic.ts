/**
 * The realistic workload (issue 31): a run whose model is the real OpenAI client against a
 * mock with a real model's timing (`streaming-openai.ts`, its own process: 300 ms to the first
 * piece, 20 pieces 25 ms apart; one `search_docs` call, then an answer), on opspilot's server
 * in its own process, driven by this process's client. Each level is a burst: `concurrency`
 * runs started at once. Measured against one run alone in the same server and run: p95 run
 * time and p95 time to the first answer text (`assistant_delta`), runs per second, and the
 * server's CPU per run. Two floors run under the same client at the same levels: the stack's
 * (`stack-floor-server.ts`: LangGraph's prebuilt agent with the stock `ChatOpenAI` on the same
 * mock and framework, nothing of opspilot), and a server that does no work with the same timing
 * (`no-work-server.ts stream`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { groupCpuMs, startLangGraph, stopLangGraph } from "./langgraph-server.js";
import { oneRun, startChild, stopChild, type RunSample } from "./load.js";
import { quantile, round } from "./stats.js";

/** How the realistic workload runs. */
export interface RealisticOptions {
  /** Runs one after another for the baseline (one run alone). */
  aloneRuns: number;
  /** Burst sizes, each measured `rounds` times. */
  bursts: number[];
  rounds: number;
  /** Also the LangGraph API server (`langgraph dev`) hosting opspilot's graph with the same model, driven by the SDK. */
  langGraph: boolean;
}

/** One burst size on one server. */
export interface RealisticResult {
  server: "opspilot" | "langgraph_api" | "stack_floor" | "no_work";
  concurrency: number;
  runs: number;
  durationP50Ms: number;
  durationP95Ms: number;
  firstDeltaP95Ms: number;
  /** p95 run time over the p95 of one run alone (1.00 is latency-bound). */
  durationP95Ratio: number;
  /** p95 time to the first answer text over one run alone's. */
  firstDeltaP95Ratio: number;
  runsPerSecond: number;
  /** The ideal: `concurrency` runs in one run alone's median time. */
  idealRunsPerSecond: number;
  /** Server process CPU (user + system) per run, ms; absent for the floor's. */
  cpuMsPerRun?: number;
}

/** Starts the streaming mock model and resolves with its base URL. */
function startMock(): Promise<{ baseURL: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./streaming-openai.ts", import.meta.url))],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the mock model exited early with code ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) =>
      resolve({ baseURL: (JSON.parse(line) as { baseURL: string }).baseURL, child }),
    );
  });
}

/** A server under the workload: how to run one run on it, and the CPU its processes spent since the last ask. */
interface Target {
  run(): Promise<RunSample>;
  cpuMs(): Promise<number>;
}

/** Starts `count` runs at once and waits for them all. */
async function burst(target: Target, count: number): Promise<{ samples: RunSample[]; wallMs: number }> {
  const started = performance.now();
  const samples = await Promise.all(Array.from({ length: count }, () => target.run()));
  return { samples, wallMs: performance.now() - started };
}

/** One run on the LangGraph API server through the SDK: a new thread, `runs.stream` with the updates and the custom stream (the answer's text) to its end. */
async function sdkRun(client: Client): Promise<RunSample> {
  const { thread_id: threadId } = await client.threads.create();
  const posted = performance.now();
  let firstAt: number | undefined;
  let firstDeltaAt: number | undefined;
  let events = 0;
  let answered = false;
  for await (const part of client.runs.stream(threadId, "opspilot", {
    input: { messages: [{ role: "user", content: "Check the payment service and the runbook advice." }] },
    streamMode: ["updates", "custom"],
  })) {
    firstAt ??= performance.now();
    events += 1;
    if (part.event === "error") throw new Error(`LangGraph run failed: ${JSON.stringify(part.data)}`);
    if (part.event === "custom" && (part.data as { type?: string }).type === "assistant_delta")
      firstDeltaAt ??= performance.now();
    if (part.event === "updates" && JSON.stringify(part.data).includes("RB-003")) answered = true;
  }
  if (!answered || firstAt === undefined) throw new Error("LangGraph run ended without the mock's answer");
  return {
    ttfeMs: firstAt - posted,
    durationMs: performance.now() - posted,
    events,
    ...(firstDeltaAt !== undefined ? { firstDeltaMs: firstDeltaAt - posted } : {}),
  };
}

const p95 = (values: number[]) => quantile(values, 0.95);
const deltas = (samples: RunSample[]) =>
  samples.flatMap((sample) => (sample.firstDeltaMs === undefined ? [] : [sample.firstDeltaMs]));

/** Measures one server: one run alone, then each burst `rounds` times (their samples pooled). */
async function measure(
  server: RealisticResult["server"],
  target: Target,
  options: RealisticOptions,
  onProgress: (line: string) => void,
): Promise<RealisticResult[]> {
  // Warm up with a burst: the first one at once runs cold (JIT, connections) and would be most of a quick run's figure.
  await burst(target, 50);
  const alone: RunSample[] = [];
  for (let index = 0; index < options.aloneRuns; index += 1) alone.push(await target.run());
  const aloneP50 = quantile(
    alone.map((sample) => sample.durationMs),
    0.5,
  );
  const aloneP95 = p95(alone.map((sample) => sample.durationMs));
  const aloneDeltaP95 = p95(deltas(alone));
  const results: RealisticResult[] = [];
  for (const concurrency of [1, ...options.bursts]) {
    const samples: RunSample[] = [];
    let wallMs = 0;
    await target.cpuMs();
    const rounds = concurrency === 1 ? 1 : options.rounds;
    for (let round = 0; round < rounds; round += 1) {
      const measured =
        concurrency === 1
          ? { samples: alone, wallMs: alone.reduce((sum, s) => sum + s.durationMs, 0) }
          : await burst(target, concurrency);
      samples.push(...measured.samples);
      wallMs += measured.wallMs;
    }
    const cpu = await target.cpuMs();
    const durations = samples.map((sample) => sample.durationMs);
    results.push({
      server,
      concurrency,
      runs: samples.length,
      durationP50Ms: round(quantile(durations, 0.5), 1),
      durationP95Ms: round(p95(durations), 1),
      firstDeltaP95Ms: round(p95(deltas(samples)), 1),
      durationP95Ratio: round(p95(durations) / aloneP95, 2),
      firstDeltaP95Ratio: round(p95(deltas(samples)) / aloneDeltaP95, 2),
      runsPerSecond: round((samples.length / wallMs) * 1000, 1),
      idealRunsPerSecond: round((concurrency / aloneP50) * 1000, 1),
      ...(server !== "no_work" && concurrency > 1 ? { cpuMsPerRun: round(cpu / samples.length, 1) } : {}),
    });
    onProgress(
      `realistic, ${server}, ${concurrency} at once: p95 ${results.at(-1)!.durationP95Ratio}× alone, ${results.at(-1)!.runsPerSecond} runs/s`,
    );
  }
  return results;
}

/** Runs the realistic workload on opspilot's server, then on the floor. */
export async function runRealistic(
  options: RealisticOptions,
  onProgress: (line: string) => void = () => {},
): Promise<RealisticResult[]> {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-realistic-"));
  const mock = await startMock();
  try {
    const results: RealisticResult[] = [];
    const opspilot = await startChild("opspilot", join(directory, "realistic.sqlite"), mock.baseURL);
    try {
      const target = { run: () => oneRun(opspilot.url), cpuMs: opspilot.cpuMs };
      results.push(...(await measure("opspilot", target, options, onProgress)));
    } finally {
      await stopChild(opspilot.child);
    }
    if (options.langGraph) {
      const { url, child } = await startLangGraph(directory, 0, {
        OPSPILOT_MODEL: "openai:bench-model",
        OPENAI_BASE_URL: mock.baseURL,
        OPENAI_API_KEY: "sk-bench",
      });
      try {
        const client = new Client({ apiUrl: url });
        let spent = groupCpuMs(child.pid!);
        const cpuMs = async () => {
          const now = groupCpuMs(child.pid!);
          const since = now - spent;
          spent = now;
          return since;
        };
        results.push(...(await measure("langgraph_api", { run: () => sdkRun(client), cpuMs }, options, onProgress)));
      } finally {
        await stopLangGraph(child);
      }
    }
    const stack = await startChild("stack_floor", "", mock.baseURL);
    try {
      const target = { run: () => oneRun(stack.url), cpuMs: stack.cpuMs };
      results.push(...(await measure("stack_floor", target, options, onProgress)));
    } finally {
      await stopChild(stack.child);
    }
    const floor = await startChild("no_work", "", "stream");
    try {
      results.push(
        ...(await measure("no_work", { run: () => oneRun(floor.url), cpuMs: floor.cpuMs }, options, onProgress)),
      );
    } finally {
      await stopChild(floor.child);
    }
    return results;
  } finally {
    mock.child.stdin!.end();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The table of the realistic workload. */
export function realisticTable(results: RealisticResult[]): string {
  const header = [
    "server",
    "at once",
    "runs",
    "p95 run",
    "p95 / alone",
    "p95 1st text / alone",
    "runs/s",
    "ideal",
    "CPU/run",
  ];
  const rows = results.map((result) => [
    result.server,
    String(result.concurrency),
    String(result.runs),
    `${Math.round(result.durationP95Ms)} ms`,
    `${result.durationP95Ratio.toFixed(2)}×`,
    `${result.firstDeltaP95Ratio.toFixed(2)}×`,
    result.runsPerSecond.toFixed(1),
    result.idealRunsPerSecond.toFixed(1),
    result.cpuMsPerRun === undefined ? "-" : `${result.cpuMsPerRun.toFixed(1)} ms`,
  ]);
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => row[index]!.length)));
  return [header, ...rows].map((row) => row.map((cell, index) => cell.padEnd(widths[index]!)).join("  ")).join("\n");
}

/** Per burst, opspilot's server and the stack's floor beside the LangGraph API server, and opspilot beside the floor. */
export interface RealisticPeerRatio {
  concurrency: number;
  /** opspilot's CPU per run over the LangGraph API server's (goal: ≤ 0.3×); absent where that server was not measured. */
  cpu?: number;
  /** opspilot's runs per second over the LangGraph API server's (goal: ≥ 3×). */
  runsPerSecond?: number;
  /** The stack floor's CPU per run over the LangGraph API server's: the lowest `cpu` a LangGraph agent on these libraries reaches. */
  floorCpu?: number;
  /** opspilot's CPU per run over the stack floor's: what opspilot adds to the libraries it runs on. */
  cpuOverFloor?: number;
}

/** The result of `server` at `concurrency` runs at once, when it was measured. */
export function resultAt(
  results: RealisticResult[],
  server: RealisticResult["server"],
  concurrency: number,
): RealisticResult | undefined {
  return results.find((result) => result.server === server && result.concurrency === concurrency);
}

/** Per burst: opspilot and the stack floor over the LangGraph API server, and opspilot over the stack floor (CPU per run and runs per second). */
export function realisticPeerRatios(results: RealisticResult[]): RealisticPeerRatio[] {
  const ratio = (over: number | undefined, under: number | undefined) =>
    over !== undefined && under ? round(over / under, 2) : undefined;
  return results.flatMap((ours) => {
    if (ours.server !== "opspilot" || ours.concurrency === 1) return [];
    const api = resultAt(results, "langgraph_api", ours.concurrency);
    const floor = resultAt(results, "stack_floor", ours.concurrency);
    const ratios = {
      cpu: ratio(ours.cpuMsPerRun, api?.cpuMsPerRun),
      runsPerSecond: ratio(ours.runsPerSecond, api?.runsPerSecond),
      floorCpu: ratio(floor?.cpuMsPerRun, api?.cpuMsPerRun),
      cpuOverFloor: ratio(ours.cpuMsPerRun, floor?.cpuMsPerRun),
    };
    const measured = Object.entries(ratios).filter(([, value]) => value !== undefined);
    return measured.length > 0 ? [{ concurrency: ours.concurrency, ...Object.fromEntries(measured) }] : [];
  });
}

/** One line per burst of `realisticPeerRatios`. */
export function realisticPeerLine(ratio: RealisticPeerRatio): string {
  const parts = [
    ratio.cpu === undefined ? undefined : `opspilot / LangGraph API server: CPU per run ${ratio.cpu.toFixed(2)}×`,
    ratio.runsPerSecond === undefined ? undefined : `runs per second ${ratio.runsPerSecond.toFixed(2)}×`,
    ratio.floorCpu === undefined
      ? undefined
      : `stack floor / LangGraph API server: CPU per run ${ratio.floorCpu.toFixed(2)}×`,
    ratio.cpuOverFloor === undefined
      ? undefined
      : `opspilot / stack floor: CPU per run ${ratio.cpuOverFloor.toFixed(2)}×`,
  ].filter((part) => part !== undefined);
  return `${ratio.concurrency} at once, ${parts.join("; ")}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes("--quick");
  const results = await runRealistic(
    { aloneRuns: quick ? 5 : 10, bursts: quick ? [50] : [25, 50, 200], rounds: quick ? 1 : 2, langGraph: !quick },
    (line) => console.error(`[realistic] ${line}`),
  );
  console.log(realisticTable(results));
  for (const ratio of realisticPeerRatios(results)) console.log(realisticPeerLine(ratio));
}
