import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { quantile, round } from "./stats.js";

/** How the load benchmark runs. */
export interface LoadOptions {
  /** Latencies of the scripted model to measure, one server each: 0 is a zero-latency model. */
  modelDelaysMs: number[];
  /** Concurrency levels to measure, in order; the first is the in-run baseline. */
  levels: Array<{ concurrency: number; runs: number }>;
  /** Untimed runs before the first level. */
  warmupRuns: number;
}

/** One run through the HTTP API, from the client's side. */
export interface RunSample {
  /** POST of the run → first complete SSE frame. */
  ttfeMs: number;
  /** POST of the run → `run_finished` frame. */
  durationMs: number;
  events: number;
  /** POST of the run → first `assistant_delta` frame (the answer's first text), when there was one. */
  firstDeltaMs?: number;
}

/** Figures of one concurrency level. */
export interface LoadResult {
  /**
   * The server under load: opspilot's own; the LangGraph API server (`langgraph dev`) hosting
   * opspilot's graph; or the floor, a server with opspilot's API shape that does no work (`no-work-server.ts`).
   */
  server: "opspilot" | "langgraph_api" | "no_work";
  /** Latency of each model call of the server's scripted model. */
  modelDelayMs: number;
  concurrency: number;
  runs: number;
  ttfeP50Ms: number;
  ttfeP95Ms: number;
  durationP50Ms: number;
  durationP95Ms: number;
  /** Median of TTFE / run duration: near 1 means the frames only reached the client when the run ended. */
  ttfeShareP50: number;
  /** Events received by all clients divided by the level's wall time. */
  eventsPerSecond: number;
  eventsPerRun: number;
  /** Runs finished divided by the level's wall time. */
  runsPerSecond: number;
  wallMs: number;
  /**
   * Diagnostics, not the measure: TTFE of the runs that started once the first `concurrency`
   * had (with 50 clients starting at once, those first ones queue behind each other's starts).
   */
  ttfeAfterRampP50Ms: number;
  ttfeAfterRampP95Ms: number;
  /** Diagnostics from opspilot's server process: its event-loop delay during the level (`monitorEventLoopDelay`, 1 ms resolution). */
  serverLoopDelayP99Ms?: number;
  serverLoopDelayMaxMs?: number;
}

const REQUEST_TIMEOUT_MS = 60_000;
const QUESTION = "Check the payment service and the runbook advice.";

/** Creates a thread and streams one run to `run_finished`, timing the first frame and the first answer text. */
export async function oneRun(url: string): Promise<RunSample> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const created = await fetch(`${url}/api/threads`, { method: "POST", signal });
  const { threadId } = (await created.json()) as { threadId: string };
  const posted = performance.now();
  const response = await fetch(`${url}/api/threads/${threadId}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: QUESTION }),
    signal,
  });
  if (!response.ok || !response.body)
    throw new Error(`run request failed: ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  let buffer = "";
  let firstAt: number | undefined;
  let firstDeltaAt: number | undefined;
  let events = 0;
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      firstAt ??= performance.now();
      events += 1;
      const type = /^event: ?(.*)$/m.exec(frame)?.[1];
      if (type === "assistant_delta") firstDeltaAt ??= performance.now();
      if (type === "error") throw new Error(`run stream failed: ${frame}`);
      if (type === "run_finished") {
        if (!frame.includes('"stopReason":"final_answer"'))
          throw new Error(`run did not finish with an answer: ${frame}`);
        await reader.cancel();
        return {
          ttfeMs: firstAt - posted,
          durationMs: performance.now() - posted,
          events,
          ...(firstDeltaAt !== undefined ? { firstDeltaMs: firstDeltaAt - posted } : {}),
        };
      }
    }
  }
  throw new Error("run stream ended without run_finished");
}

/** Runs `runs` runs, `concurrency` at a time, and summarizes them. */
export async function level(
  oneRun: () => Promise<RunSample>,
  concurrency: number,
  runs: number,
): Promise<Omit<LoadResult, "modelDelayMs" | "server" | "serverLoopDelayP99Ms" | "serverLoopDelayMaxMs">> {
  const samples: RunSample[] = [];
  const afterRamp: RunSample[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < runs) {
      // The first `concurrency` runs start together; the others each start as one ends.
      const rampedUp = next >= concurrency;
      next += 1;
      const sample = await oneRun();
      samples.push(sample);
      if (rampedUp) afterRamp.push(sample);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  const events = samples.reduce((sum, sample) => sum + sample.events, 0);
  const ttfe = samples.map((sample) => sample.ttfeMs);
  const durations = samples.map((sample) => sample.durationMs);
  return {
    concurrency,
    runs,
    ttfeP50Ms: round(quantile(ttfe, 0.5), 2),
    ttfeP95Ms: round(quantile(ttfe, 0.95), 2),
    durationP50Ms: round(quantile(durations, 0.5), 2),
    durationP95Ms: round(quantile(durations, 0.95), 2),
    ttfeShareP50: round(
      quantile(
        samples.map((sample) => sample.ttfeMs / sample.durationMs),
        0.5,
      ),
      2,
    ),
    eventsPerSecond: round((events / wallMs) * 1000, 1),
    eventsPerRun: round(events / runs, 1),
    runsPerSecond: round((runs / wallMs) * 1000, 2),
    wallMs: round(wallMs, 1),
    ttfeAfterRampP50Ms: round(
      quantile(
        afterRamp.map((sample) => sample.ttfeMs),
        0.5,
      ),
      2,
    ),
    ttfeAfterRampP95Ms: round(
      quantile(
        afterRamp.map((sample) => sample.ttfeMs),
        0.95,
      ),
      2,
    ),
  };
}

/** A running `load-server.ts` (or a server speaking its protocol). */
export interface Child {
  url: string;
  child: ChildProcess;
  /** Asks the server for its event-loop delay since the last ask (ms). */
  loopDelay(): Promise<{ p99: number; max: number }>;
  /** Asks the server for the CPU time its process spent since the last ask (ms). */
  cpuMs(): Promise<number>;
}

/** The script of each server this file starts, and its arguments (`model`: a scripted latency in ms, or a model's base URL). */
function serverCommand(server: LocalServer, dbPath: string, model: number | string): string[] {
  if (server === "no_work") return [fileURLToPath(new URL("./no-work-server.ts", import.meta.url)), String(model)];
  if (server === "stack_floor")
    return [fileURLToPath(new URL("./stack-floor-server.ts", import.meta.url)), String(model)];
  return [fileURLToPath(new URL("./load-server.ts", import.meta.url)), dbPath, String(model)];
}

/**
 * The servers this file starts itself (the LangGraph API server has its own, `langgraph-server.ts`);
 * `stack_floor` (`stack-floor-server.ts`) takes only a model's base URL.
 */
type LocalServer = "opspilot" | "no_work" | "stack_floor";

/** Starts a server in a child process and resolves with its URL. */
export function startChild(server: LocalServer, dbPath: string, model: number | string): Promise<Child> {
  const child = spawn(process.execPath, ["--import", "tsx", ...serverCommand(server, dbPath, model)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error("load server did not start within 30 s"));
    }, 30_000);
    child.once("exit", (code) => reject(new Error(`load server exited early with code ${code}`)));
    const lines = createInterface({ input: child.stdout! });
    const answers: Array<(line: string) => void> = [];
    const ask = <T>(command: string) =>
      new Promise<T>((answer) => {
        answers.push((text) => answer(JSON.parse(text) as T));
        child.stdin!.write(`${command}\n`);
      });
    lines.once("line", (line) => {
      clearTimeout(timer);
      lines.on("line", (answer) => answers.shift()?.(answer));
      resolve({
        url: (JSON.parse(line) as { url: string }).url,
        child,
        loopDelay: () => ask<{ p99: number; max: number }>("loop-delay"),
        cpuMs: async () => (await ask<{ cpuMs: number }>("cpu")).cpuMs,
      });
    });
  });
}

/** Closes the child's stdin (it shuts down by itself) and waits for it to exit. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.stdin!.end();
  });
}

/** Measures every concurrency level, in order, against one fresh server whose model answers after `modelDelayMs`. */
async function measureServer(
  server: Exclude<LocalServer, "stack_floor">,
  options: LoadOptions,
  modelDelayMs: number,
  directory: string,
  onProgress: (line: string) => void,
): Promise<LoadResult[]> {
  const dbPath = join(directory, `load-${modelDelayMs}ms.sqlite`);
  const { url, child, loopDelay } = await startChild(server, dbPath, modelDelayMs);
  try {
    const run = () => oneRun(url);
    if (options.warmupRuns > 0) await level(run, Math.min(5, options.warmupRuns), options.warmupRuns);
    const results: LoadResult[] = [];
    for (const { concurrency, runs } of options.levels) {
      await loopDelay();
      const measured = await level(run, concurrency, runs);
      const delay = await loopDelay();
      const result = {
        server,
        modelDelayMs,
        ...measured,
        serverLoopDelayP99Ms: round(delay.p99, 1),
        serverLoopDelayMaxMs: round(delay.max, 1),
      };
      results.push(result);
      onProgress(
        `load, ${server}, model ${modelDelayMs} ms, ${concurrency} concurrent: ${runs} runs in ${(result.wallMs / 1000).toFixed(1)} s`,
      );
    }
    return results;
  } finally {
    await stopChild(child);
  }
}

/** Runs the HTTP load benchmark for every model latency: opspilot's server, then the floor (a server that does no work). */
export async function runLoad(
  options: LoadOptions,
  onProgress: (line: string) => void = () => {},
): Promise<LoadResult[]> {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-load-"));
  try {
    const results: LoadResult[] = [];
    for (const server of ["opspilot", "no_work"] as const)
      for (const modelDelayMs of options.modelDelaysMs)
        results.push(...(await measureServer(server, options, modelDelayMs, directory, onProgress)));
    return results;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
