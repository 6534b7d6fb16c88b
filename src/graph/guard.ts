import type { RunOptions } from "./config.js";
import type { RunInfo, StopInfo } from "./state.js";

/** Inputs of the deterministic stop rules. */
export interface LimitInput {
  /** The run, with `recentSteps` already including this step's fingerprint. */
  run: RunInfo;
  options: RunOptions;
  now: number;
}

/**
 * The guard's stop rules (design §1), in order: steps, wall time, budget, consecutive
 * failures, identical calls, A→B→A→B oscillation. Returns null when the run may go on.
 */
export function checkLimits({ run, options, now }: LimitInput): StopInfo | null {
  const zh = run.language === "zh";
  if (run.steps > options.maxSteps) {
    return {
      reason: "max_steps",
      detail: zh ? `已达到最多 ${options.maxSteps} 步的上限。` : `It reached the limit of ${options.maxSteps} steps.`,
    };
  }
  const elapsed = now - run.startedAt;
  if (elapsed > options.maxWallTimeMs) {
    return {
      reason: "timeout",
      detail: zh
        ? `运行时间超过了 ${options.maxWallTimeMs} 毫秒的上限。`
        : `It ran longer than the ${options.maxWallTimeMs} ms limit.`,
    };
  }
  if (
    run.tokens > options.tokenBudget ||
    (options.costBudgetUsd !== undefined && run.costUsd > options.costBudgetUsd)
  ) {
    return {
      reason: "budget_exhausted",
      detail: zh ? `已用完本次运行的预算（${run.tokens} tokens）。` : `It spent its budget (${run.tokens} tokens).`,
    };
  }
  if (run.failsInRow >= options.maxToolFailsInRow) {
    return {
      reason: "too_many_fails",
      detail: zh ? `工具连续失败了 ${run.failsInRow} 次。` : `Tools failed ${run.failsInRow} times in a row.`,
    };
  }
  const recent = run.recentSteps;
  const window = recent.slice(-options.identicalCallLimit);
  if (window.length === options.identicalCallLimit && window.every((step) => step === window[0])) {
    return {
      reason: "loop_detected",
      detail: zh
        ? `同样的调用已连续提出 ${options.identicalCallLimit} 次。`
        : `The same calls were proposed ${options.identicalCallLimit} times in a row.`,
    };
  }
  const [a, b, c, d] = recent.slice(-4);
  if (recent.length >= 4 && a === c && b === d && a !== b) {
    return {
      reason: "loop_detected",
      detail: zh ? "调用在两组之间来回往复（A→B→A→B）。" : "The calls alternated between two sets (A→B→A→B).",
    };
  }
  return null;
}
