import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { OpsPilotError } from "../contracts/errors.js";
import { parseEvalArgs, USAGE } from "./args.js";
import { compareReports, readReport } from "./report/compare.js";
import { EvalUsageError } from "./eval-error.js";
import { renderHtmlReport } from "./report/html-report.js";
import { loadScenarios } from "./load-scenarios.js";
import { runEval } from "./run-eval.js";
import { progressReporter, renderSummary, renderTable, type ProgressSink } from "./report/terminal.js";

/** What `npm run eval` runs with; tests pass their own. */
export interface EvalCliIo {
  /** Flags after `npm run eval --`. */
  argv: readonly string[];
  /** The environment's variables. */
  variables: Readonly<Record<string, string | undefined>>;
  /** The table and the summary. */
  stdout: ProgressSink;
  /** Progress and errors. */
  stderr: ProgressSink;
  /** A chat model object instead of `--model` (tests). */
  chatModel?: BaseChatModel;
}

/** `npm run eval`: 0 done, 1 below `--min-score` or failed, 2 bad flags, scenarios, report or configuration. */
export async function runEvalCli(io: EvalCliIo): Promise<number> {
  try {
    const args = parseEvalArgs(io.argv);
    if (args.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const scenarios = loadScenarios(args.scenarios);
    const earlier = args.compare ? readReport(args.compare) : undefined;
    const progress = progressReporter(io.stderr);
    const result = await runEval({
      scenarios,
      variables: io.variables,
      model: args.model,
      chatModel: io.chatModel,
      configPath: args.config,
      repeat: args.repeat,
      concurrency: args.concurrency,
      onProgress: (done, total, scenario, run) => progress.update(done, total, scenario.id, run.score),
    }).finally(() => progress.end());
    const { report } = result;
    if (earlier && args.compare) report.compare = compareReports(earlier, report, args.compare);
    const out = args.out ?? join(".opspilot", "eval", report.startedAt.replace(/[:.]/g, "-"));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(out, "report.html"), renderHtmlReport(report, result.runs));
    io.stdout.write(`${renderTable(report)}\n\n${renderSummary(report)}\n`);
    if (result.logged.length > 0)
      io.stderr.write(`opspilot eval: the app logged ${result.logged.length} failure(s), e.g. ${result.logged[0]}\n`);
    io.stdout.write(`report: ${join(out, "report.json")}, ${join(out, "report.html")}\n`);
    if (args.minScore !== undefined && report.summary.score < args.minScore) {
      io.stderr.write(
        `opspilot eval: score ${report.summary.score.toFixed(3)} is below --min-score ${args.minScore} (model ${report.model})\n`,
      );
      return 1;
    }
    return 0;
  } catch (error) {
    if (error instanceof EvalUsageError || error instanceof OpsPilotError) {
      io.stderr.write(`opspilot eval: ${error.message}\n`);
      return 2;
    }
    io.stderr.write(`opspilot eval: failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
