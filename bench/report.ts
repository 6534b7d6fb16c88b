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

/** Step-cost ratios: opspilot's variants against `createReactAgent`, and the last five steps against the first five. */
export function stepRatios(results: PeerResult[]): Ratio[] {
  const ratios: Ratio[] = [];
  for (const payload of new Set(results.map((result) => result.payload))) {
    const find = (peer: string) => results.find((result) => result.payload === payload && result.peer === peer);
    const baseline = find("create_react_agent");
    if (!baseline) continue;
    for (const peer of results.filter((result) => result.payload === payload && result.peer.startsWith("opspilot"))) {
      ratios.push({
        label: `${peer.peer} / create_react_agent, ${payload}`,
        wall: paired(peer.perRunMsPerStep, baseline.perRunMsPerStep),
        cpu: paired(peer.perRunCpuMsPerStep, baseline.perRunCpuMsPerStep),
      });
    }
  }
  return ratios;
}

function paired(values: number[], baseline: number[]): number {
  return round(median(values.map((value, i) => value / baseline[i]!)), 2);
}

/** Load ratios: each concurrency level against the first (the baseline), per model latency. */
export function loadRatios(
  results: LoadResult[],
): Array<{ label: string; ttfeP50: number; ttfeP95: number; eventsPerSecond: number }> {
  const ratios = [];
  for (const delay of new Set(results.map((result) => result.modelDelayMs))) {
    const [baseline, ...others] = results.filter((result) => result.modelDelayMs === delay);
    for (const other of others) {
      ratios.push({
        label: `${other.concurrency} / ${baseline!.concurrency} concurrent, model ${delay} ms`,
        ttfeP50: round(other.ttfeP50Ms / baseline!.ttfeP50Ms, 2),
        ttfeP95: round(other.ttfeP95Ms / baseline!.ttfeP95Ms, 2),
        eventsPerSecond: round(other.eventsPerSecond / baseline!.eventsPerSecond, 2),
      });
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
      "model latency / concurrency",
      "runs",
      "TTFE p50 ms",
      "TTFE p95 ms",
      "run p50 ms",
      "run p95 ms",
      "TTFE/run p50",
      "events/s",
      "events/run",
    ],
    results.map((result) => [
      `${result.modelDelayMs} ms x ${result.concurrency}`,
      result.runs,
      fixed(result.ttfeP50Ms, 1),
      fixed(result.ttfeP95Ms, 1),
      fixed(result.durationP50Ms, 1),
      fixed(result.durationP95Ms, 1),
      fixed(result.ttfeShareP50),
      fixed(result.eventsPerSecond, 1),
      fixed(result.eventsPerRun, 1),
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
    fixed(run.msPerStep),
  ];
  return table(
    ["run", ...headers, "last step", "max", "loop ms/step"],
    [
      row(result.unbounded, "no budget (whole history)"),
      row(result.bounded, `budget, window ${result.options.windowTokens}`),
    ],
  );
}
