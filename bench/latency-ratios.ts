import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/storage/open-sqlite.js";
import { median, round } from "./stats.js";
import { timeBareLoop, timeGraph, timeRuntime, type TimedScript } from "./timed-loop.js";

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
}

async function pairedRounds(
  rounds: number,
  first: () => Promise<number>,
  second: () => Promise<number>,
): Promise<{ first: number; second: number; ratio: number }> {
  await first();
  await second();
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // Alternating which side goes first spreads whatever else the machine does over both.
    if (round % 2 === 0) {
      a.push(await first());
      b.push(await second());
    } else {
      b.push(await second());
      a.push(await first());
    }
  }
  return { first: median(a), second: median(b), ratio: median(b.map((value, i) => value / a[i]!)) };
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
    const reads = await pairedRounds(
      options.rounds,
      () => timeGraph(backend, one),
      () => timeGraph(backend, many),
    );
    onProgress(`parallel reads: ${options.rounds} rounds`);
    const realistic: TimedScript = { turns: 5, callsPerTurn: 1, modelMs: 200, toolMs: 50 };
    const latency = await pairedRounds(
      options.rounds,
      () => timeBareLoop(realistic),
      () => timeRuntime(backend, realistic),
    );
    onProgress(`realistic latency: ${options.rounds} rounds`);
    return {
      parallelReads: {
        reads: many.callsPerTurn,
        readMs: many.toolMs,
        oneMs: round(reads.first, 1),
        manyMs: round(reads.second, 1),
        ratio: round(reads.ratio, 3),
      },
      realisticLatency: {
        modelMs: realistic.modelMs,
        toolMs: realistic.toolMs,
        turns: realistic.turns,
        bareMs: round(latency.first, 1),
        runtimeMs: round(latency.second, 1),
        ratio: round(latency.ratio, 3),
      },
    };
  } finally {
    backend.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
