import { readFileSync } from "node:fs";
import { EvalUsageError } from "../eval-error.js";
import { EvalReportSchema, round, type EvalReport, type ScoreChange } from "./report.js";
import { formatKeyPath } from "../../config/file.js";

/** Reads an earlier `report.json`; a missing or malformed one is a usage error naming the file and the field. */
export function readReport(path: string): EvalReport {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new EvalUsageError(`--compare ${path}: cannot be read as JSON (${reason})`);
  }
  const parsed = EvalReportSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new EvalUsageError(
    `--compare ${path}: not an eval report: ${formatKeyPath(issue.path as PropertyKey[]) || "(root)"}: ${issue.message}`,
  );
}

/** The scenarios whose score went down or up from `before` to `after`, and those added or removed. */
export function compareReports(
  before: EvalReport,
  after: EvalReport,
  against: string,
): NonNullable<EvalReport["compare"]> {
  const earlier = new Map(before.scenarios.map((scenario) => [scenario.id, scenario.score]));
  const later = new Map(after.scenarios.map((scenario) => [scenario.id, scenario.score]));
  const changes: ScoreChange[] = [];
  for (const [id, now] of later) {
    const was = earlier.get(id);
    if (was !== undefined && round(now - was) !== 0)
      changes.push({ id, before: was, after: now, delta: round(now - was) });
  }
  return {
    against,
    model: before.model,
    scoreBefore: before.summary.score,
    worse: changes.filter((change) => change.delta < 0).sort((a, b) => a.delta - b.delta),
    better: changes.filter((change) => change.delta > 0).sort((a, b) => b.delta - a.delta),
    added: [...later.keys()].filter((id) => !earlier.has(id)),
    removed: [...earlier.keys()].filter((id) => !later.has(id)),
  };
}
