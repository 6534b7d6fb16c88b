import type { ParallelReadsResult, RealisticLatencyResult } from "./latency-ratios.js";
import type { PausedThreadsResult } from "./paused-threads.js";
import { table } from "./report.js";
import type { StartupResult } from "./startup.js";
import { CATEGORIES } from "./sqlite-bytes.js";
import type { StorageResult, ThreadBytes } from "./storage-size.js";
import type { PostgresStepsResult, PostgresStepsRow } from "./postgres-steps.js";

/** Parallel reads, realistic latency and many paused threads: one row each, the ratio last. */
export function measuresTable(
  reads: ParallelReadsResult,
  latency: RealisticLatencyResult,
  paused: PausedThreadsResult,
): string {
  return table(
    ["measure", "baseline", "measured", "ratio", "also"],
    [
      [
        `${reads.reads} reads of ${reads.readMs} ms vs 1`,
        `${reads.oneMs.toFixed(1)} ms`,
        `${reads.manyMs.toFixed(1)} ms`,
        reads.ratio.toFixed(2),
        "",
      ],
      [
        `model ${latency.modelMs} ms, tools ${latency.toolMs} ms: runtime vs bare loop`,
        `${latency.bareMs.toFixed(1)} ms`,
        `${latency.runtimeMs.toFixed(1)} ms`,
        latency.ratio.toFixed(3),
        `createReactAgent on the same checkpointer: ${latency.reactAgentMs.toFixed(1)} ms, ${latency.reactAgentRatio.toFixed(3)}`,
      ],
      [
        `resume with ${paused.many} paused vs ${paused.few} (fastest)`,
        `${paused.fewResumeMinMs.toFixed(1)} ms`,
        `${paused.manyResumeMinMs.toFixed(1)} ms`,
        paused.resumeRatio.toFixed(2),
        `median ${paused.fewResumeMs.toFixed(1)} / ${paused.manyResumeMs.toFixed(1)} ms; RSS +${paused.rssIncreaseMb.toFixed(1)} MB (JS heap +${paused.heapIncreaseMb.toFixed(1)} MB) for ${paused.many - paused.few} more paused`,
      ],
    ],
  );
}

/** Bytes per finished seed thread by table group, and checkpoint bytes per step early and late. */
export function storageTable(result: StorageResult): string {
  const row = (label: string, bytes: ThreadBytes, total: number) => [
    label,
    ...CATEGORIES.map((category) => bytes[category as keyof ThreadBytes]),
    total,
  ];
  const perThread = table(
    ["bytes per seed thread", ...CATEGORIES, "total"],
    [
      row("history (default)", result.bytesPerThread, result.totalBytesPerThread),
      row("latest checkpoint only", result.latestBytesPerThread, result.latestTotalBytesPerThread),
    ],
  );
  const perStep = table(
    ["checkpoint bytes per step", "steps 1-5", `steps ${result.longSteps - 4}-${result.longSteps}`, "growth"],
    [["mean", result.first5BytesPerStep, result.last5BytesPerStep, `x${result.growth.toFixed(2)}`]],
  );
  const parts = result.partsPerThread;
  const values = table(
    ["stored values per seed thread, with history", "checkpoints", "messages", "other writes", "keys", "floor"],
    [["bytes", parts.checkpoints, parts.messages, parts.otherWrites, parts.keys, parts.checkpoints + parts.messages]],
  );
  return `${perThread}\n${values}\n${perStep}`;
}

/** Cold-start medians of the compiled entry points. */
export function startupTable(result: StartupResult): string {
  const range = (values: number[]) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
  return table(
    ["entry point", "median ms", "range"],
    [
      ["node -e 0 (floor)", result.nodeMs.toFixed(0), range(result.samples.node)],
      [
        "import @langchain/langgraph and @langchain/openai (the stack's floor)",
        result.stackMs.toFixed(0),
        range(result.samples.stack),
      ],
      ["node dist/cli/main.js --help", result.helpMs.toFixed(0), range(result.samples.help)],
      ["node dist/cli/main.js ask <demo question>", result.askMs.toFixed(0), range(result.samples.ask)],
      ["node dist/main.js until /healthz answers", result.serverReadyMs.toFixed(0), range(result.samples.serverReady)],
    ],
  );
}

/** The runtime on PostgreSQL: each checkpointer on each network, then the ratios. */
export function postgresTable(result: PostgresStepsResult): string {
  const network = (row: PostgresStepsRow) =>
    row.network === "loopback" ? "loopback" : `+${result.delayMs} ms each way (RTT ${result.delayedRoundTripMs} ms)`;
  const saver = (row: PostgresStepsRow) =>
    row.saver === "opspilot" ? "opspilot (BatchedPostgresSaver)" : "LangGraph PostgresSaver";
  return [
    table(
      ["checkpointer", "network", "ms/step", "statements/step"],
      result.rows.map((row) => [saver(row), network(row), row.msPerStep.toFixed(2), row.statementsPerStep.toFixed(1)]),
    ),
    table(
      ["compared (ms per step)", "ratio"],
      [
        ["opspilot / PostgresSaver, loopback", result.ratios.loopback.toFixed(2)],
        [`opspilot / PostgresSaver, +${result.delayMs} ms each way`, result.ratios.delayed.toFixed(2)],
      ],
    ),
  ].join("\n");
}
