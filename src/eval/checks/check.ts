import type { ToolRegistry } from "../../tools/registry.js";
import type { Scenario } from "../scenario-schema.js";
import type { ScenarioTrace } from "../trace.js";

/** The names of the checks, in report order. */
export const CHECK_NAMES = [
  "tools",
  "args",
  "steps",
  "pauses",
  "evidence",
  "fabrication",
  "invariants",
  "spend",
] as const;

/** One check's name. */
export type CheckName = (typeof CHECK_NAMES)[number];

/** One check's verdict, with a one-line reason. */
export interface CheckResult {
  /** Which check. */
  name: CheckName;
  /** Whether the agent met it. */
  passed: boolean;
  /** One line: what was seen, or what went wrong. */
  detail: string;
}

/** What every check reads. */
export interface CheckInput {
  /** The scenario and its expectations. */
  scenario: Scenario;
  /** What the run left. */
  trace: ScenarioTrace;
  /** The tools of the app (read or write, risk). */
  registry: Pick<ToolRegistry, "get">;
}

/** A check over a run; undefined when the scenario asks nothing it could judge. */
export type Check = (input: CheckInput) => CheckResult | undefined;

/** A verdict: passed when there are no problems, else the problems on one line. */
export function verdict(name: CheckName, problems: readonly string[], passDetail: string): CheckResult {
  return problems.length === 0
    ? { name, passed: true, detail: passDetail }
    : { name, passed: false, detail: problems.join("; ") };
}

/** Distinct values, in first-seen order. */
export function distinct<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}
