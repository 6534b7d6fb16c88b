/**
 * `npm run bench`: the per-step loop cost of design §10 against createReactAgent and
 * createAgent, the HTTP load, the request tokens per step of a long thread, parallel reads,
 * realistic latency, storage per thread and per step, many paused threads, the runtime on
 * PostgreSQL (LangGraph's `PostgresSaver` against opspilot's) and start-up, each
 * against baselines measured in the same run. Prints a report and writes
 * `bench/results/latest.json`. `--quick` runs fewer rounds (a smoke check); `--gate` fails when
 * a ratio regressed more than 30 % from `bench/baseline.json`; `--write-baseline` writes that file.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { runLangGraphLoad } from "./langgraph-server.js";
import { runLoad, type LoadOptions } from "./load.js";
import {
  realisticPeerLine,
  realisticPeerRatios,
  realisticTable,
  runRealistic,
  type RealisticOptions,
} from "./realistic.js";
import { contextTokensTable, loadRatios, loadTable, stepCostTable, stepRatios, table } from "./report.js";
import { runStepCost, type StepCostOptions } from "./step-cost.js";
import { runContextTokens, type ContextTokensOptions } from "./context-tokens.js";
import { bestOf, gatedRatios, readBaseline, regressions, writeBaseline } from "./gate.js";
import { runLatency, type LatencyOptions } from "./latency-ratios.js";
import { runPausedThreads, type PausedThreadsOptions } from "./paused-threads.js";
import { runStartup, type StartupOptions } from "./startup.js";
import { runStorage, type StorageOptions } from "./storage-size.js";
import { measuresTable, postgresTable, startupTable, storageTable } from "./report-more.js";
import { runPostgresSteps, type PostgresStepsOptions } from "./postgres-steps.js";

const quick = process.argv.includes("--quick");
const gate = process.argv.includes("--gate");
const baselineOut = process.argv.includes("--write-baseline");
const BASELINE_FILE = fileURLToPath(new URL("./baseline.json", import.meta.url));

const stepCostOptions: StepCostOptions = {
  steps: 20,
  runs: quick ? 5 : 10,
  warmups: 2,
  payloads: ["small", "20kb"],
};
const loadOptions: LoadOptions = {
  // 0 ms is the zero-latency model of design §10; 5 ms stands in for a networked model, which yields to I/O between steps.
  modelDelaysMs: [0, 5],
  levels: [
    { concurrency: 1, runs: quick ? 5 : 20 },
    { concurrency: 50, runs: quick ? 50 : 100 },
  ],
  warmupRuns: 5,
};

const contextTokensOptions: ContextTokensOptions = {
  // The same 40 steps in --quick: the thread is the measurement, and it takes seconds.
  steps: 40,
  model: "openai:gpt-4o-mini",
  windowTokens: 32_000,
};

// A stand-in for a database across a network: 1 ms each way, about a 2 ms round trip here.
// The realistic workload: a streaming model with a real model's timing, bursts of runs at once.
const realisticOptions: RealisticOptions = {
  aloneRuns: quick ? 5 : 10,
  bursts: quick ? [50] : [25, 50, 200],
  rounds: quick ? 1 : 2,
  // Its start-up alone takes several seconds, and its bursts are slow: the full run only.
  langGraph: !quick,
};
const postgresOptions: PostgresStepsOptions = { steps: 10, rounds: quick ? 3 : 7, delayMs: 1 };
const latencyOptions: LatencyOptions = { rounds: quick ? 3 : 7 };
const storageOptions: StorageOptions = { threads: quick ? 10 : 50, longSteps: 40 };
// 1,000 paused threads and 11 resumes in --quick too: the count is the measurement, and the gate reads the fastest resume.
const pausedOptions: PausedThreadsOptions = { few: 10, many: 1000, resumes: 11 };
// --quick measures the dist/ that `npm ci` (prepare) built; the full run compiles the current sources first.
const startupOptions: StartupOptions = {
  runs: quick ? 3 : 5,
  build: !quick || !existsSync(new URL("../dist/main.js", import.meta.url)),
};

/** Measures again what the gate reads (not the HTTP load nor start-up) and returns the gated ratios. */
async function gatedAgain(progress: (line: string) => void): Promise<Record<string, number>> {
  const stepCost = await runStepCost(stepCostOptions, progress);
  const contextTokens = await runContextTokens(contextTokensOptions, progress);
  const latency = await runLatency(latencyOptions, progress);
  const storage = await runStorage(storageOptions, progress);
  const pausedThreads = await runPausedThreads(pausedOptions, progress);
  const postgres = await runPostgresSteps(postgresOptions, progress);
  const realistic = await runRealistic(realisticOptions, progress);
  return gatedRatios({
    stepCost,
    stepRatios: stepRatios(stepCost),
    parallelReads: latency.parallelReads,
    realisticLatency: latency.realisticLatency,
    storage,
    pausedThreads,
    contextTokens,
    postgres,
    realistic,
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg();
  const progress = (line: string) => console.error(`[bench] ${line}`);
  progress(
    `node ${process.version}, ${availableParallelism()} cores, load average ${loadBefore.map((value) => value.toFixed(2)).join(" ")}`,
  );

  const stepCost = await runStepCost(stepCostOptions, progress);
  const load = [
    ...(await runLoad(loadOptions, progress)),
    // --quick starts the LangGraph API server once (its start-up alone takes several seconds).
    ...(await runLangGraphLoad(
      quick ? { ...loadOptions, modelDelaysMs: loadOptions.modelDelaysMs.slice(0, 1) } : loadOptions,
      progress,
    )),
  ];
  const realistic = await runRealistic(realisticOptions, progress);
  const contextTokens = await runContextTokens(contextTokensOptions, progress);
  const latency = await runLatency(latencyOptions, progress);
  const storage = await runStorage(storageOptions, progress);
  const pausedThreads = await runPausedThreads(pausedOptions, progress);
  const postgres = await runPostgresSteps(postgresOptions, progress);
  const startup = await runStartup(startupOptions, progress);
  const stepCostRatios = stepRatios(stepCost);
  const loadCompared = loadRatios(load);
  const loadAfter = loadavg();

  console.log(
    `\nPer-step loop cost: ${stepCostOptions.steps} tool-calling steps per run, median of ${stepCostOptions.runs} runs after ${stepCostOptions.warmups} warm-up(s), scripted zero-latency model, SQLite checkpointer on a temp file`,
  );
  console.log(stepCostTable(stepCost));
  console.log(
    "ms = wall clock, cpu = process CPU time (steadier on a shared machine); steps 1-5 / 16-20 = mean loop time between model calls; ckpt = time in SqliteSaver put/putWrites/getTuple, its calls, and the bytes left in its tables after the run; storage = opspilot's storage (journal, results, events, leases, records, compaction).",
  );
  console.log("\nRatios (paired per round, median; below 1.00 means the first is faster than the second)");
  console.log(
    table(
      ["compared", "wall", "cpu"],
      stepCostRatios.map((ratio) => [ratio.label, ratio.wall.toFixed(2), ratio.cpu.toFixed(2)]),
    ),
  );
  console.log(
    "\nHTTP load: opspilot's server; the LangGraph API server (langgraph dev, in-memory) hosting opspilot's graph driven by @langchain/langgraph-sdk (threads.create + runs.stream); and no_work, the floor: a server with opspilot's API and frames that does no work (hono, no storage, no graph). Each on 127.0.0.1 in a child process, the same scripted model or its latency (2 tool calls, then an answer); TTFE = run request to first streamed event",
  );
  console.log(loadTable(load));
  console.log(
    "TTFE/run near 1.00 means no frame reached the client before its run ended. Events are each server's own (opspilot and no_work: run_started, tool calls and results, answer, run_finished; LangGraph: metadata and one update per node): compare runs/s too. no_work's 50 / 1 ratios are what the client, the sockets and the machine leave for a server that does nothing.",
  );
  console.log(
    table(
      ["compared", "TTFE p50", "TTFE p95", "events/s", "runs/s"],
      loadCompared.map((ratio) => [
        ratio.label,
        ratio.ttfeP50.toFixed(2),
        ratio.ttfeP95.toFixed(2),
        ratio.eventsPerSecond.toFixed(2),
        ratio.runsPerSecond.toFixed(2),
      ]),
    ),
  );
  console.log(
    "\nRealistic workload: opspilot's server with the OpenAI client against a streaming mock model in its own process (300 ms to the first piece, then 20 pieces 25 ms apart; one search_docs call, then the answer), runs started in bursts by this process's client; langgraph_api is the LangGraph API server (langgraph dev) hosting opspilot's graph with the same model, driven by the SDK (full run only); stack_floor is LangGraph's prebuilt agent with the stock ChatOpenAI on the same mock, framework and frames, nothing of opspilot (in-memory saver): what the libraries alone cost; no_work is a server that does no work with the same timing. Ratios are over one run alone on the same server in the same run; ideal runs/s = the burst over one run's median time; CPU/run = the server process's user + system time over the burst's runs",
  );
  console.log(realisticTable(realistic));
  for (const ratio of realisticPeerRatios(realistic)) console.log(realisticPeerLine(ratio));
  console.log(
    `\nRequest tokens per step: a ${contextTokensOptions.steps}-step thread (one turn per step, each reading a 20 KB result, English and Chinese in turn), ${contextTokensOptions.model}, prompt tokens (o200k) of the request that reads each step's result`,
  );
  console.log(contextTokensTable(contextTokens));
  console.log(
    `unbounded / bounded: ${contextTokens.meanRatio.toFixed(2)}× mean request tokens, ${contextTokens.lastRatio.toFixed(2)}× at step ${contextTokensOptions.steps}; bounded, last 10 steps over the 10 before: ${contextTokens.boundedGrowth.toFixed(2)} (1.00 is flat)`,
  );
  console.log(
    `budget / createAgent with summarizationMiddleware for the same window (summarizing at the prompt limit, keeping a quarter of it; the summarizer's own requests counted): ${contextTokens.lastVsSummarized.toFixed(2)}× at step ${contextTokensOptions.steps}, ${contextTokens.totalVsSummarized.toFixed(2)}× over the thread`,
  );
  console.log(
    "\nParallel reads (through opspilot's graph), realistic latency (5 turns; opspilot's runtime end to end vs the bare loop), many paused threads (approval pauses, child process, RSS after GC)",
  );
  console.log(measuresTable(latency.parallelReads, latency.realisticLatency, pausedThreads));
  console.log(
    `\nStorage: bytes in the SQLite file per finished seed-question thread (3 steps, 1 pause, answer; ${storageOptions.threads} threads, dbstat after VACUUM, tables with their indexes), and checkpointer bytes per step of a ${storageOptions.longSteps}-step thread (small outputs)`,
  );
  console.log(storageTable(storage));
  console.log(
    postgres
      ? `\nPostgreSQL: opspilot's runtime, ${postgresOptions.steps} tool-calling steps per run (scripted zero-latency model), median of ${postgresOptions.rounds} rounds, on a private PostgreSQL server (fsync off), reached directly and through a proxy that delays each direction; statements counted over one run\n${postgresTable(postgres)}`
      : "\nPostgreSQL: skipped (no PostgreSQL server binaries, or OPSPILOT_SKIP_POSTGRES=1)",
  );
  console.log(
    `\nStart-up: compiled output (node dist/...), median of ${startupOptions.runs} cold starts, each on a new database`,
  );
  console.log(startupTable(startup));
  const gated = gatedRatios({
    stepCost,
    stepRatios: stepCostRatios,
    parallelReads: latency.parallelReads,
    realisticLatency: latency.realisticLatency,
    storage,
    pausedThreads,
    contextTokens,
    postgres,
    realistic,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\nload average before ${loadBefore.map((v) => v.toFixed(2)).join(" ")}, after ${loadAfter.map((v) => v.toFixed(2)).join(" ")}; ${seconds.toFixed(0)} s in all`,
  );

  const directory = fileURLToPath(new URL("./results/", import.meta.url));
  mkdirSync(directory, { recursive: true });
  const file = `${directory}latest.json`;
  const machine = {
    node: process.version,
    platform: process.platform,
    cpu: cpus()[0]?.model,
    cores: availableParallelism(),
    loadBefore,
    loadAfter,
  };
  const json = {
    generatedAt: new Date().toISOString(),
    quick,
    seconds,
    machine,
    stepCost: { options: stepCostOptions, results: stepCost, ratios: stepCostRatios },
    load: { options: loadOptions, results: load, ratios: loadCompared },
    realistic: { options: realisticOptions, results: realistic, peerRatios: realisticPeerRatios(realistic) },
    contextTokens,
    parallelReads: { options: latencyOptions, result: latency.parallelReads },
    realisticLatency: { options: latencyOptions, result: latency.realisticLatency },
    storage: { options: storageOptions, result: storage },
    pausedThreads: { options: pausedOptions, result: pausedThreads },
    postgres: { options: postgresOptions, result: postgres ?? null },
    startup: { options: startupOptions, result: startup },
    gatedRatios: gated,
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`results written to ${file}`);
  if (baselineOut) {
    writeBaseline(BASELINE_FILE, gated, loadAfter);
    console.log(`baseline written to ${BASELINE_FILE}`);
  }
  if (gate) {
    const baseline = readBaseline(BASELINE_FILE);
    let regressed = regressions(gated, baseline);
    if (regressed.length > 0) {
      progress(`gate: ${regressed.map((item) => item.name).join("; ")} above the tolerance, measuring again`);
      regressed = regressions(bestOf(gated, await gatedAgain(progress)), baseline);
    }
    for (const item of regressed)
      console.error(
        `bench gate: ${item.name} regressed from ${item.baseline.toFixed(2)} to ${item.current.toFixed(2)}${item.goal === undefined ? "" : `, above its goal of ${item.goal.toFixed(2)}`}`,
      );
    console.log(
      `bench gate: ${Object.keys(gated).length} ratios checked, ${regressed.length} regressed more than 30 % or passed a goal`,
    );
    if (regressed.length > 0) process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
