/**
 * `npm run bench`: the per-step loop cost of design §10, the HTTP load of issue 5 and the
 * request tokens per step of a long thread with and without the context budget (issue 12),
 * each against baselines measured in the same run. Prints a report and writes
 * `bench/results/latest.json`. `npm run bench -- --quick` runs fewer rounds (a smoke check).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { runLoad, type LoadOptions } from "./load.js";
import { contextTokensTable, loadRatios, loadTable, stepCostTable, stepRatios, table } from "./report.js";
import { runStepCost, type StepCostOptions } from "./step-cost.js";
import { runContextTokens, type ContextTokensOptions } from "./context-tokens.js";

const quick = process.argv.includes("--quick");

const stepCostOptions: StepCostOptions = {
  steps: 20,
  runs: quick ? 3 : 10,
  warmups: quick ? 1 : 2,
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

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg();
  const progress = (line: string) => console.error(`[bench] ${line}`);
  progress(
    `node ${process.version}, ${availableParallelism()} cores, load average ${loadBefore.map((value) => value.toFixed(2)).join(" ")}`,
  );

  const stepCost = await runStepCost(stepCostOptions, progress);
  const load = await runLoad(loadOptions, progress);
  const contextTokens = await runContextTokens(contextTokensOptions, progress);
  const stepCostRatios = stepRatios(stepCost);
  const loadCompared = loadRatios(load);
  const loadAfter = loadavg();

  console.log(
    `\nPer-step loop cost: ${stepCostOptions.steps} tool-calling steps per run, median of ${stepCostOptions.runs} runs after ${stepCostOptions.warmups} warm-up(s), scripted zero-latency model, SQLite checkpointer on a temp file`,
  );
  console.log(stepCostTable(stepCost));
  console.log(
    "ms = wall clock, cpu = process CPU time (steadier on a shared machine); steps 1-5 / 16-20 = mean loop time between model calls; ckpt = time in SqliteSaver put/putWrites/getTuple, calls and bytes it stored; storage = opspilot's own tables.",
  );
  console.log("\nRatios (paired per round, median; below 1.00 means opspilot is faster than createReactAgent)");
  console.log(
    table(
      ["compared", "wall", "cpu"],
      stepCostRatios.map((ratio) => [ratio.label, ratio.wall.toFixed(2), ratio.cpu.toFixed(2)]),
    ),
  );
  console.log(
    "\nHTTP load: real server on 127.0.0.1 in a child process, scripted model (2 tool calls, then an answer), TTFE = POST to first SSE frame",
  );
  console.log(loadTable(load));
  console.log("TTFE/run near 1.00 means no frame reached the client before its run ended.");
  console.log(
    table(
      ["compared", "TTFE p50", "TTFE p95", "events/s"],
      loadCompared.map((ratio) => [
        ratio.label,
        ratio.ttfeP50.toFixed(2),
        ratio.ttfeP95.toFixed(2),
        ratio.eventsPerSecond.toFixed(2),
      ]),
    ),
  );
  console.log(
    `\nRequest tokens per step: a ${contextTokensOptions.steps}-step thread (one turn per step, each reading a 20 KB result, English and Chinese in turn), ${contextTokensOptions.model}, prompt tokens (o200k) of the request that reads each step's result`,
  );
  console.log(contextTokensTable(contextTokens));
  console.log(
    `unbounded / bounded: ${contextTokens.meanRatio.toFixed(2)}× mean request tokens, ${contextTokens.lastRatio.toFixed(2)}× at step ${contextTokensOptions.steps}; bounded, last 10 steps over the 10 before: ${contextTokens.boundedGrowth.toFixed(2)} (1.00 is flat)`,
  );
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
    contextTokens,
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`results written to ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
