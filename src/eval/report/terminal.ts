import type { EvalReport } from "./report.js";

/** Where progress goes: a bar redrawn in place on a terminal, plain lines otherwise. */
export interface ProgressSink {
  /** Whether it is a terminal. */
  isTTY?: boolean;
  /** Writes text. */
  write(text: string): unknown;
}

/** Reports "scenario N of M": a bar on a terminal, a line per scenario otherwise; `end` closes the bar. */
export function progressReporter(sink: ProgressSink): {
  update(done: number, total: number, id: string, score: number): void;
  end(): void;
} {
  let drawn = false;
  return {
    update(done, total, id, score) {
      if (!sink.isTTY) {
        sink.write(`scenario ${done} of ${total}: ${id} ${score.toFixed(2)}\n`);
        return;
      }
      const width = 24;
      const filled = Math.round((done / total) * width);
      sink.write(`\r\x1b[2K[${"#".repeat(filled)}${"-".repeat(width - filled)}] scenario ${done} of ${total}: ${id}`);
      drawn = true;
    },
    end() {
      if (drawn) sink.write("\r\x1b[2K");
    },
  };
}

/** The terminal table: one row per scenario with its score, steps, tokens, cost and first failed check. */
export function renderTable(report: EvalReport, width = 120): string {
  const rows = report.scenarios.map((scenario) => {
    const failed = scenario.checks.find((check) => !check.passed);
    return [
      scenario.id,
      scenario.passed ? "pass" : "FAIL",
      scenario.score.toFixed(2),
      String(scenario.steps),
      String(scenario.tokens),
      scenario.costUsd.toFixed(4),
      failed ? `${failed.name}: ${failed.detail}` : "",
    ];
  });
  const header = ["SCENARIO", "RESULT", "SCORE", "STEPS", "TOKENS", "COST", "FIRST FAILED CHECK"];
  const widths = header
    .slice(0, -1)
    .map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => {
    const fixed = cells
      .slice(0, -1)
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ");
    const rest = Math.max(20, width - fixed.length - 2);
    const last = cells.at(-1)!;
    return `${fixed}  ${last.length > rest ? `${last.slice(0, rest - 1)}…` : last}`.trimEnd();
  };
  return [line(header), ...rows.map(line)].join("\n");
}

/** The lines under the table: the summary, and the scores that moved against an earlier report. */
export function renderSummary(report: EvalReport): string {
  const { summary } = report;
  const lines = [
    `model ${report.model}: ${summary.passed} of ${summary.total} scenarios passed, score ${summary.score.toFixed(3)}`,
  ];
  const compare = report.compare;
  if (compare) {
    lines.push(`compared with ${compare.against} (${compare.model}, score ${compare.scoreBefore.toFixed(3)}):`);
    const change = (item: (typeof compare.worse)[number]) =>
      `  ${item.id}: ${item.before.toFixed(2)} → ${item.after.toFixed(2)} (${item.delta > 0 ? "+" : ""}${item.delta.toFixed(2)})`;
    lines.push(compare.worse.length ? "worse:" : "worse: none", ...compare.worse.map(change));
    lines.push(compare.better.length ? "better:" : "better: none", ...compare.better.map(change));
    if (compare.added.length) lines.push(`new: ${compare.added.join(", ")}`);
    if (compare.removed.length) lines.push(`not run now: ${compare.removed.join(", ")}`);
  }
  return lines.join("\n");
}
