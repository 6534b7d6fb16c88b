import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { median, round } from "./stats.js";

/** How the start-up benchmark runs. */
export interface StartupOptions {
  /** Cold starts per command; the median is reported. */
  runs: number;
  /** Compile `src/` into `dist/` first (`npm run build`), so the figures are for the current sources. */
  build: boolean;
}

/** Cold-start times of the compiled entry points, each a fresh `node` process with a fresh database. */
export interface StartupResult {
  /** `npm run build` (tsc), when it ran. */
  buildMs?: number;
  /** `node -e 0`: what any Node process costs on this machine. */
  nodeMs: number;
  /** A process that imports `@langchain/langgraph` and `@langchain/openai` and exits: the stack's own start-up. */
  stackMs: number;
  /** `node dist/cli/main.js --help`. */
  helpMs: number;
  /** `node dist/cli/main.js ask "<demo question>"` to its exit (the demo model, a new SQLite file). */
  askMs: number;
  /** `node dist/main.js` from spawn until `GET /healthz` answers 200. */
  serverReadyMs: number;
  /** Every run, in order, per figure. */
  samples: { node: number[]; stack: number[]; help: number[]; ask: number[]; serverReady: number[] };
}

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** What loading the libraries a LangGraph agent with an OpenAI-compatible model needs costs, with nothing of opspilot. */
const STACK_IMPORTS = 'await import("@langchain/langgraph"); await import("@langchain/openai");';
const DEMO_QUESTION = "Check the payment service's recent errors and compare them with the runbooks";

function baseEnv(directory: string): NodeJS.ProcessEnv {
  // No .env, no config file, no keys: the offline demo model on a new database.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    OPSPILOT_DB: join(directory, `startup-${Math.random().toString(36).slice(2)}.sqlite`),
    OPSPILOT_LOG_LEVEL: "error",
  };
}

/** Runs `node <args>` to its exit and returns the wall time; a non-zero exit throws with its stderr. */
function timeProcess(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`node ${args.join(" ")} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

/** Starts `node dist/main.js` on a free port and returns the time until `/healthz` answers 200. */
function timeServerReady(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["dist/main.js"], {
      cwd: ROOT,
      env: { ...env, HOST: "127.0.0.1", PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const finish = (outcome: () => void) => {
      child.removeAllListeners("exit");
      child.once("exit", outcome);
      child.kill("SIGTERM");
    };
    child.once("exit", (code) => reject(new Error(`the server exited with ${code} before it was ready: ${stderr}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (!url) return;
      const poll = async (): Promise<void> => {
        const answered = await fetch(`${url}/healthz`).then(
          (response) => response.status === 200,
          () => false,
        );
        if (answered) {
          const ms = performance.now() - started;
          finish(() => resolve(ms));
        } else setTimeout(() => void poll(), 5);
      };
      void poll();
    });
  });
}

/** Measures the cold start of the CLI (`--help`, a demo question) and of the server, each `runs` times. */
export async function runStartup(
  options: StartupOptions,
  onProgress: (line: string) => void = () => {},
): Promise<StartupResult> {
  let buildMs: number | undefined;
  if (options.build) {
    const started = performance.now();
    const build = spawnSync(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
      {
        cwd: ROOT,
        encoding: "utf8",
      },
    );
    buildMs = performance.now() - started;
    // tsc writes dist/ even when it reports type errors; the start-up figures are still those of the current sources.
    const errors = build.status === 0 ? "" : ` (tsc exited with ${build.status}: ${build.stdout.split("\n")[0]})`;
    onProgress(`start-up: built dist/ in ${(buildMs / 1000).toFixed(1)} s${errors}`);
  }
  const directory = mkdtempSync(join(tmpdir(), "opspilot-startup-"));
  try {
    const samples: StartupResult["samples"] = { node: [], stack: [], help: [], ask: [], serverReady: [] };
    for (let run = 0; run < options.runs; run += 1) {
      samples.node.push(await timeProcess(["-e", "0"], baseEnv(directory)));
      samples.stack.push(await timeProcess(["--input-type=module", "-e", STACK_IMPORTS], baseEnv(directory)));
      samples.help.push(await timeProcess(["dist/cli/main.js", "--help"], baseEnv(directory)));
      samples.ask.push(await timeProcess(["dist/cli/main.js", "ask", DEMO_QUESTION], baseEnv(directory)));
      samples.serverReady.push(await timeServerReady(baseEnv(directory)));
    }
    const result: StartupResult = {
      ...(buildMs === undefined ? {} : { buildMs: round(buildMs, 0) }),
      nodeMs: round(median(samples.node), 1),
      stackMs: round(median(samples.stack), 1),
      helpMs: round(median(samples.help), 1),
      askMs: round(median(samples.ask), 1),
      serverReadyMs: round(median(samples.serverReady), 1),
      samples: {
        node: samples.node.map((value) => round(value, 1)),
        stack: samples.stack.map((value) => round(value, 1)),
        help: samples.help.map((value) => round(value, 1)),
        ask: samples.ask.map((value) => round(value, 1)),
        serverReady: samples.serverReady.map((value) => round(value, 1)),
      },
    };
    onProgress(`start-up: ${options.runs} cold starts of each entry point`);
    return result;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
