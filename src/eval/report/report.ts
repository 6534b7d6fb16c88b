import { z } from "zod";
import type { CheckResult } from "../checks/index.js";
import type { ScenarioTrace } from "../trace.js";

/** One check's verdict as reported. */
export const ReportCheckSchema = z.object({ name: z.string(), passed: z.boolean(), detail: z.string() });

/** One scenario's result in `report.json` (averaged over its repeats). */
export const ReportScenarioSchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  file: z.string().optional(),
  passed: z.boolean().describe("Every check passed in every repeat"),
  score: z.number().min(0).max(1).describe("Mean of the repeats' scores"),
  steps: z.number().describe("Mean model steps"),
  tokens: z.number().describe("Mean tokens"),
  costUsd: z.number().describe("Mean cost in USD at the configured prices"),
  latencyMs: z.number().optional().describe("Mean wall time"),
  checks: z.array(ReportCheckSchema).describe("Each check, failed when it failed in any repeat"),
  repeats: z.array(z.object({ score: z.number(), passed: z.boolean() })).optional(),
});

/** A score that moved between two reports. */
export const ScoreChangeSchema = z.object({ id: z.string(), before: z.number(), after: z.number(), delta: z.number() });

/** `report.json`. */
export const EvalReportSchema = z.object({
  model: z.string(),
  startedAt: z.string(),
  durationMs: z.number().optional(),
  repeat: z.number().int().positive().optional(),
  scenarios: z.array(ReportScenarioSchema),
  summary: z.object({ total: z.number().int(), passed: z.number().int(), score: z.number() }),
  compare: z
    .object({
      against: z.string(),
      model: z.string(),
      scoreBefore: z.number(),
      worse: z.array(ScoreChangeSchema),
      better: z.array(ScoreChangeSchema),
      added: z.array(z.string()).describe("Scenarios the earlier report did not have"),
      removed: z.array(z.string()).describe("Scenarios of the earlier report not run now"),
    })
    .optional(),
});

/** An evaluation's report. */
export type EvalReport = z.infer<typeof EvalReportSchema>;
/** One scenario of a report. */
export type ReportScenario = z.infer<typeof ReportScenarioSchema>;
/** A score change. */
export type ScoreChange = z.infer<typeof ScoreChangeSchema>;

/** One run of a scenario: its verdicts and what it left (the trace goes to the HTML report only). */
export interface ScenarioRun {
  /** Checks, in report order. */
  checks: CheckResult[];
  /** 0 to 1. */
  score: number;
  /** What the run left. */
  trace: ScenarioTrace;
}

/** A scenario's runs, reduced to its report entry. */
export function reportScenario(
  scenario: { id: string; title?: string },
  file: string,
  runs: readonly ScenarioRun[],
): ReportScenario {
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const names = [...new Set(runs.flatMap((run) => run.checks.map((check) => check.name)))];
  const checks = names.map((name) => {
    const verdicts = runs.map((run) => run.checks.find((check) => check.name === name));
    const failed = verdicts.filter((check) => check && !check.passed);
    if (failed.length === 0) return { name, passed: true, detail: verdicts.find(Boolean)!.detail };
    const prefix = runs.length > 1 ? `failed in ${failed.length} of ${runs.length} runs: ` : "";
    return { name, passed: false, detail: prefix + failed[0]!.detail };
  });
  return {
    id: scenario.id,
    title: scenario.title,
    file,
    passed: runs.every((run) => run.checks.every((check) => check.passed)),
    score: round(mean(runs.map((run) => run.score))),
    steps: round(mean(runs.map((run) => run.trace.steps))),
    tokens: round(mean(runs.map((run) => run.trace.tokens))),
    costUsd: round(mean(runs.map((run) => run.trace.costUsd)), 6),
    latencyMs: Math.round(mean(runs.map((run) => run.trace.latencyMs))),
    checks,
    repeats:
      runs.length > 1
        ? runs.map((run) => ({ score: round(run.score), passed: run.checks.every((c) => c.passed) }))
        : undefined,
  };
}

/** The summary line of a report: scenarios, those that passed, and the mean score. */
export function summarize(scenarios: readonly ReportScenario[]): EvalReport["summary"] {
  const score = scenarios.reduce((sum, scenario) => sum + scenario.score, 0) / Math.max(1, scenarios.length);
  return {
    total: scenarios.length,
    passed: scenarios.filter((scenario) => scenario.passed).length,
    score: round(score),
  };
}

/** Rounds to a few decimals, so reports read well and compare exactly. */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
