import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/storage/sqlite/open-sqlite.js";
import { pairedRounds, round } from "./stats.js";
import { timeBareLoop, timeGraph, timeReactAgent, timeRuntime, type TimedScript } from "./timed-loop.js";

/** How the latency measures run. */
export interface LatencyOptions {
  /** Timed rounds of each side (after one untimed); ratios are paired per round, then the median is taken. */
  rounds: number;
}

/** Eight 100 ms reads in one turn against one, through opspilot's graph. */
export interface ParallelReadsResult {
  reads: number;
  readMs: number;
  /** Median wall ms of the run with one read, and with `reads` reads. */
  oneMs: number;
  manyMs: number;
  /** Median of the paired per-round ratios many / one (1.00: the reads cost no more than one). */
  ratio: number;
}

/** A 200 ms model and 50 ms tools: opspilot's runtime end to end against the bare loop. */
export interface RealisticLatencyResult {
  modelMs: number;
  toolMs: number;
  turns: number;
  bareMs: number;
  runtimeMs: number;
  /** Median of the paired per-round ratios runtime / bare loop. */
  ratio: number;
  /** The reference: LangGraph's prebuilt `createReactAgent` on the same checkpointer, in the same rounds. */
  reactAgentMs: number;
  /** Median of the per-round ratios `createReactAgent` / bare loop. */
  reactAgentRatio: number;
}

/** Measures parallel reads and realistic latency on one temp SQLite file. */
export async function runLatency(
  options: LatencyOptions,
  onProgress: (line: string) => void = () => {},
): Promise<{ parallelReads: ParallelReadsResult; realisticLatency: RealisticLatencyResult }> {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-latency-"));
  const backend = openSqlite(join(directory, "latency.sqlite"));
  try {
    const one: TimedScript = { turns: 1, callsPerTurn: 1, modelMs: 0, toolMs: 100 };
    const many: TimedScript = { ...one, callsPerTurn: 8 };
    const [oneRead, manyReads] = await pairedRounds(options.rounds, [
      () => timeGraph(backend, one),
      () => timeGraph(backend, many),
    ]);
    onProgress(`parallel reads: ${options.rounds} rounds`);
    const realistic: TimedScript = { turns: 5, callsPerTurn: 1, modelMs: 200, toolMs: 50 };
    const [bare, runtime, reactAgent] = await pairedRounds(options.rounds, [
      () => timeBareLoop(realistic),
      () => timeRuntime(backend, realistic),
      () => timeReactAgent(backend, realistic),
    ]);
    onProgress(`realistic latency: ${options.rounds} rounds`);
    return {
      parallelReads: {
        reads: many.callsPerTurn,
        readMs: many.toolMs,
        oneMs: round(oneRead!.ms, 1),
        manyMs: round(manyReads!.ms, 1),
        ratio: round(manyReads!.ratio, 3),
      },
      realisticLatency: {
        modelMs: realistic.modelMs,
        toolMs: realistic.toolMs,
        turns: realistic.turns,
        bareMs: round(bare!.ms, 1),
        runtimeMs: round(runtime!.ms, 1),
        ratio: round(runtime!.ratio, 3),
        reactAgentMs: round(reactAgent!.ms, 1),
        reactAgentRatio: round(reactAgent!.ratio, 3),
      },
    };
  } finally {
    backend.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
