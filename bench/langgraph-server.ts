import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { level, type LoadOptions, type LoadResult, type RunSample } from "./load.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const GRAPH_ID = "opspilot";
const QUESTION = "Check the payment service and the runbook advice.";
const ANSWER = "payment-service: DB pool exhaustion; follow the PAY-5031 runbook.";
const READY_TIMEOUT_MS = 120_000;

/** A free loopback port (the server is told which one; it cannot pick its own and report it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen({ port: 0, host: "127.0.0.1" }, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The `langgraphjs` bin of the installed @langchain/langgraph-cli (no download). */
function cliPath(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@langchain/langgraph-cli/package.json");
  return join(dirname(manifest), (require(manifest) as { bin: { langgraphjs: string } }).bin.langgraphjs);
}

/**
 * Starts `langgraph dev` (in-memory, no reload, analytics off) on a free loopback port, hosting
 * `langgraph-graph.ts`: opspilot's graph as Studio hosts it, with the load benchmark's scripted
 * model (or, given `OPSPILOT_MODEL` in `extraEnv`, that model).
 */
export async function startLangGraph(
  directory: string,
  modelDelayMs: number,
  extraEnv: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess; startMs: number }> {
  const graphFile = fileURLToPath(new URL("./langgraph-graph.ts", import.meta.url));
  const config = { node_version: "20", graphs: { [GRAPH_ID]: `./${relative(directory, graphFile)}:graph` } };
  writeFileSync(join(directory, "langgraph.json"), JSON.stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANGGRAPH_CLI_NO_ANALYTICS: "1",
    BROWSER: "none",
    OPSPILOT_DB: join(directory, "opspilot.sqlite"),
    OPSPILOT_LOG_LEVEL: "error",
    OPSPILOT_BENCH_MODEL_DELAY_MS: String(modelDelayMs),
    ...extraEnv,
  };
  const started = performance.now();
  const args = [cliPath(), "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload"];
  const child = spawn(process.execPath, [...args, "--config", join(directory, "langgraph.json")], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  while (performance.now() - started < READY_TIMEOUT_MS) {
    if (child.exitCode !== null) throw new Error(`langgraph dev exited with ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${url}/ok`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return { url, child, startMs: performance.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopLangGraph(child);
  throw new Error(`langgraph dev did not answer /ok within ${READY_TIMEOUT_MS / 1000} s:\n${output}`);
}

/** Ends the server's whole process group (the CLI starts the API server as its child). */
export function stopLangGraph(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    process.kill(-child.pid!, "SIGTERM");
  });
}

/** One run through the SDK: a new thread, then `runs.stream` to its end, timing the first streamed event. */
async function oneRun(client: Client): Promise<RunSample> {
  const { thread_id: threadId } = await client.threads.create();
  const posted = performance.now();
  let firstAt: number | undefined;
  let events = 0;
  let answered = false;
  for await (const part of client.runs.stream(threadId, GRAPH_ID, {
    input: { messages: [{ role: "user", content: QUESTION }] },
    streamMode: "updates",
  })) {
    firstAt ??= performance.now();
    events += 1;
    if (part.event === "error") throw new Error(`LangGraph run failed: ${JSON.stringify(part.data)}`);
    if (JSON.stringify(part.data).includes(ANSWER)) answered = true;
  }
  if (!answered || firstAt === undefined) throw new Error("LangGraph run ended without the scripted answer");
  return { ttfeMs: firstAt - posted, durationMs: performance.now() - posted, events };
}

/**
 * The LangGraph API server peer of the load benchmark: the same levels and model latencies as
 * opspilot's server, driven by the official SDK. Events are the streamed parts (`metadata`, then
 * one `updates` part per node), so compare runs per second as well as events per second.
 */
export async function runLangGraphLoad(
  options: LoadOptions,
  onProgress: (line: string) => void = () => {},
): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (const modelDelayMs of options.modelDelaysMs) {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-langgraph-"));
    try {
      const { url, child, startMs } = await startLangGraph(directory, modelDelayMs);
      onProgress(`LangGraph API server, model ${modelDelayMs} ms: ready in ${(startMs / 1000).toFixed(1)} s`);
      try {
        const client = new Client({ apiUrl: url });
        const run = () => oneRun(client);
        if (options.warmupRuns > 0) await level(run, Math.min(5, options.warmupRuns), options.warmupRuns);
        for (const { concurrency, runs } of options.levels) {
          const result = { server: "langgraph_api" as const, modelDelayMs, ...(await level(run, concurrency, runs)) };
          results.push(result);
          onProgress(
            `LangGraph API server, model ${modelDelayMs} ms, ${concurrency} concurrent: ${runs} runs in ${(result.wallMs / 1000).toFixed(1)} s`,
          );
        }
      } finally {
        await stopLangGraph(child);
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  return results;
}

/** CPU time (user + system, ms) of every live process in the group `pgid` leads: the CLI and the API server it starts. */
export function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // After the command in parentheses: state, ppid, pgrp, …, utime (14th field), stime (15th).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / CLOCK_TICKS;
}

/** Linux's USER_HZ, the unit of /proc's CPU times. */
const CLOCK_TICKS = 100;
