import type { LoadResult } from "./load.js";
import type { PeerResult } from "./step-cost.js";
import type { ContextTokensResult, ContextTokensRun } from "./context-tokens.js";
import { mean, median, round } from "./stats.js";

/** One ratio of a peer against a baseline measured in the same run. */
export interface Ratio {
  /** What is compared, e.g. `opspilot_graph / create_react_agent, 20kb`. */
  label: string;
  /** Median over rounds of the paired per-round ratio of wall ms per step (round i of each peer ran back to back). */
  wall: number;
  /** The same on process CPU time. */
  cpu: number;
}

/**
 * Step-cost ratios per payload: opspilot's variants against `createReactAgent`, the graph
 * against `createAgent` with its middlewares, the runtime against the graph it drives, and
 * the runtime that keeps the latest checkpoint only against the one that keeps them all.
 */
export function stepRatios(results: PeerResult[]): Ratio[] {
  const ratios: Ratio[] = [];
  for (const payload of new Set(results.map((result) => result.payload))) {
    const find = (peer: string) => results.find((result) => result.payload === payload && result.peer === peer);
    const compare = (peer: PeerResult | undefined, baseline: PeerResult | undefined) => {
      if (!peer || !baseline) return;
      ratios.push({
        label: `${peer.peer} / ${baseline.peer}, ${payload}`,
        wall: paired(peer.perRunMsPerStep, baseline.perRunMsPerStep),
        cpu: paired(peer.perRunCpuMsPerStep, baseline.perRunCpuMsPerStep),
      });
    };
    for (const peer of results.filter((result) => result.payload === payload && result.peer.startsWith("opspilot")))
      compare(peer, find("create_react_agent"));
    compare(find("opspilot_graph"), find("create_agent"));
    compare(find("opspilot_runtime"), find("opspilot_graph"));
    compare(find("opspilot_runtime_latest"), find("opspilot_runtime"));
  }
  return ratios;
}

function paired(values: number[], baseline: number[]): number {
  return round(median(values.map((value, i) => value / baseline[i]!)), 2);
}

/** One load ratio: TTFE p50/p95 and throughput of one set of runs over another's. */
export interface LoadRatio {
  label: string;
  ttfeP50: number;
  ttfeP95: number;
  eventsPerSecond: number;
  runsPerSecond: number;
}

function loadRatio(label: string, other: LoadResult, baseline: LoadResult): LoadRatio {
  return {
    label,
    ttfeP50: round(other.ttfeP50Ms / baseline.ttfeP50Ms, 2),
    ttfeP95: round(other.ttfeP95Ms / baseline.ttfeP95Ms, 2),
    eventsPerSecond: round(other.eventsPerSecond / baseline.eventsPerSecond, 2),
    runsPerSecond: round(other.runsPerSecond / baseline.runsPerSecond, 2),
  };
}

/**
 * Load ratios per model latency: each server's concurrency levels against its first (the
 * baseline), then opspilot's server against the LangGraph API server at each level.
 */
export function loadRatios(results: LoadResult[]): LoadRatio[] {
  const ratios: LoadRatio[] = [];
  for (const delay of new Set(results.map((result) => result.modelDelayMs))) {
    for (const server of ["opspilot", "langgraph_api", "no_work"] as const) {
      const [baseline, ...others] = results.filter(
        (result) => result.modelDelayMs === delay && result.server === server,
      );
      if (!baseline) continue;
      for (const other of others)
        ratios.push(
          loadRatio(
            `${server}: ${other.concurrency} / ${baseline.concurrency} concurrent, model ${delay} ms`,
            other,
            baseline,
          ),
        );
    }
    for (const ours of results.filter((result) => result.modelDelayMs === delay && result.server === "opspilot")) {
      const theirs = results.find(
        (result) =>
          result.modelDelayMs === delay && result.server === "langgraph_api" && result.concurrency === ours.concurrency,
      );
      if (theirs)
        ratios.push(
          loadRatio(`opspilot / langgraph_api, ${ours.concurrency} concurrent, model ${delay} ms`, ours, theirs),
        );
    }
  }
  return ratios;
}

/** A plain-text table with right-aligned numbers. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join("  ");
  return [line(cells[0]!), widths.map((width) => "-".repeat(width)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** The step-cost table of the console report. */
export function stepCostTable(results: PeerResult[]): string {
  return table(
    [
      "payload / peer",
      "ms/step",
      "range",
      "cpu ms/step",
      "steps 1-5",
      "16-20",
      "cpu 1-5",
      "cpu 16-20",
      "cpu growth",
      "ckpt ms/step",
      "ckpt calls/step",
      "ckpt KB/step",
      "storage ms/step",
    ],
    results.map((result) => [
      `${result.payload} ${result.peer}`,
      fixed(result.msPerStep),
      `${fixed(result.minMsPerStep, 1)}-${fixed(result.maxMsPerStep, 1)}`,
      fixed(result.cpuMsPerStep),
      fixed(result.first5Ms),
      fixed(result.last5Ms),
      fixed(result.first5CpuMs),
      fixed(result.last5CpuMs),
      `x${fixed(result.last5CpuMs / result.first5CpuMs)}`,
      fixed(result.checkpointerMsPerStep),
      fixed(result.checkpointerCallsPerStep, 1),
      fixed(result.checkpointKbPerStep, 1),
      fixed(result.storageMsPerStep),
    ]),
  );
}

/** The load table of the console report. */
export function loadTable(results: LoadResult[]): string {
  return table(
    [
      "server, model latency x concurrency",
      "runs",
      "TTFE p50 ms",
      "TTFE p95 ms",
      "after burst p50/p95",
      "server loop delay p99",
      "run p50 ms",
      "run p95 ms",
      "TTFE/run p50",
      "events/s",
      "events/run",
      "runs/s",
    ],
    results.map((result) => [
      `${result.server}, ${result.modelDelayMs} ms x ${result.concurrency}`,
      result.runs,
      fixed(result.ttfeP50Ms, 1),
      fixed(result.ttfeP95Ms, 1),
      // With one run at a time there is no burst; the runs past the first `concurrency` are all there is.
      result.concurrency > 1 ? `${fixed(result.ttfeAfterRampP50Ms, 1)}/${fixed(result.ttfeAfterRampP95Ms, 1)}` : "",
      result.serverLoopDelayP99Ms === undefined ? "" : fixed(result.serverLoopDelayP99Ms, 1),
      fixed(result.durationP50Ms, 1),
      fixed(result.durationP95Ms, 1),
      fixed(result.ttfeShareP50),
      fixed(result.eventsPerSecond, 1),
      fixed(result.eventsPerRun, 1),
      fixed(result.runsPerSecond),
    ]),
  );
}

/** The request-tokens table: mean prompt tokens per block of ten steps, the last step, and the loop's time per step. */
export function contextTokensTable(result: ContextTokensResult): string {
  const blocks = (tokens: number[]) =>
    Array.from({ length: Math.ceil(tokens.length / 10) }, (_, block) =>
      Math.round(mean(tokens.slice(block * 10, block * 10 + 10))),
    );
  const headers = blocks(result.bounded.tokens).map((_, block) => `steps ${block * 10 + 1}-${block * 10 + 10}`);
  const row = (run: ContextTokensRun, label: string) => [
    label,
    ...blocks(run.tokens),
    run.tokens.at(-1)!,
    Math.max(...run.tokens),
    run.totalTokens,
    run.keepsTurnTwoFact ? "yes" : "no",
    fixed(run.msPerStep),
  ];
  return table(
    ["run", ...headers, "last step", "max", "all requests", "turn-2 fact at the end", "loop ms/step"],
    [
      row(result.unbounded, "no budget (whole history)"),
      row(result.bounded, `budget, window ${result.options.windowTokens}, target ${result.targetTokens}`),
      row(result.summarized, `createAgent + summarizationMiddleware (${result.summarized.summarizerCalls} summaries)`),
    ],
  );
}
