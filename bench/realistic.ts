/**
 * The realistic workload (issue 31): a run whose model is the real OpenAI client against a
 * mock with a real model's timing (`streaming-openai.ts`, its own process: 300 ms to the first
 * piece, 20 pieces 25 ms apart; one `search_docs` call, then an answer), on opspilot's server
 * in its own process, driven by this process's client. Each level is a burst: `concurrency`
 * runs started at once. Measured against one run alone in the same server and run: p95 run
 * time and p95 time to the first answer text (`assistant_delta`), runs per second, and the
 * server's CPU per run. The floor, a server that does no work with the same timing
 * (`no-work-server.ts stream`), runs under the same client at the same levels.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { oneRun, startChild, stopChild, type Child, type RunSample } from "./load.js";
import { quantile, round } from "./stats.js";

/** How the realistic workload runs. */
export interface RealisticOptions {
  /** Runs one after another for the baseline (one run alone). */
  aloneRuns: number;
  /** Burst sizes, each measured `rounds` times. */
  bursts: number[];
  rounds: number;
}

/** One burst size on one server. */
export interface RealisticResult {
  server: "opspilot" | "no_work";
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

/** Starts `count` runs at once and waits for them all. */
async function burst(url: string, count: number): Promise<{ samples: RunSample[]; wallMs: number }> {
  const started = performance.now();
  const samples = await Promise.all(Array.from({ length: count }, () => oneRun(url)));
  return { samples, wallMs: performance.now() - started };
}

const p95 = (values: number[]) => quantile(values, 0.95);
const deltas = (samples: RunSample[]) =>
  samples.flatMap((sample) => (sample.firstDeltaMs === undefined ? [] : [sample.firstDeltaMs]));

/** Measures one server: one run alone, then each burst `rounds` times (their samples pooled). */
async function measure(
  server: RealisticResult["server"],
  child: Child,
  options: RealisticOptions,
  onProgress: (line: string) => void,
): Promise<RealisticResult[]> {
  // Warm up with a burst: the first one at once runs cold (JIT, connections) and would be most of a quick run's figure.
  await burst(child.url, 50);
  const alone: RunSample[] = [];
  for (let index = 0; index < options.aloneRuns; index += 1) alone.push(await oneRun(child.url));
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
    await child.cpuMs();
    const rounds = concurrency === 1 ? 1 : options.rounds;
    for (let round = 0; round < rounds; round += 1) {
      const measured =
        concurrency === 1
          ? { samples: alone, wallMs: alone.reduce((sum, s) => sum + s.durationMs, 0) }
          : await burst(child.url, concurrency);
      samples.push(...measured.samples);
      wallMs += measured.wallMs;
    }
    const cpu = await child.cpuMs();
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
      ...(server === "opspilot" && concurrency > 1 ? { cpuMsPerRun: round(cpu / samples.length, 1) } : {}),
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
      results.push(...(await measure("opspilot", opspilot, options, onProgress)));
    } finally {
      await stopChild(opspilot.child);
    }
    const floor = await startChild("no_work", "", "stream");
    try {
      results.push(...(await measure("no_work", floor, options, onProgress)));
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes("--quick");
  const results = await runRealistic(
    { aloneRuns: quick ? 5 : 10, bursts: quick ? [50] : [25, 50, 200], rounds: quick ? 1 : 2 },
    (line) => console.error(`[realistic] ${line}`),
  );
  console.log(realisticTable(results));
}
