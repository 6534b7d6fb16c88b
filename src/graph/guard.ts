import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ObservationMeta } from "../contracts/observation.js";
import { ERROR_CLASSES, type ErrorCode } from "../contracts/error-codes.js";
import { canonicalJson } from "../contracts/formats/canonical.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { RunOptions } from "./config.js";
import type { ProposedCall } from "../contracts/calls.js";
import type { RunInfo } from "./state.js";

/** How many step fingerprints a run keeps: enough to see a cycle of four steps twice. */
export const RECENT_STEPS_KEPT = 8;

/** Longest cycle of steps the guard recognises (A→B→C→D→A→B→C→D). */
const LONGEST_CYCLE = 4;

/** Which stop rule fired, with the figures its message quotes; the words live in `stop-message.ts`. */
export type LimitHit =
  | { reason: "max_steps"; rule: "max_steps"; limit: number }
  | { reason: "timeout"; rule: "timeout"; limitMs: number }
  | { reason: "budget_exhausted"; rule: "tokens" | "cost"; tokens: number; costUsd: number }
  | { reason: "too_many_fails"; rule: "failed_steps"; steps: number }
  | { reason: "loop_detected"; rule: "identical_calls"; times: number }
  | { reason: "loop_detected"; rule: "cycle"; length: number }
  | { reason: "loop_detected"; rule: "approval_pauses"; limit: number };

/** Inputs of the deterministic stop rules. */
export interface LimitInput {
  /** The run, with `recentSteps` already including this step's fingerprint. */
  run: RunInfo;
  options: RunOptions;
  now: number;
  /** Whether this step proposes a call that will wait for the user's approval. */
  asksApproval?: boolean;
}

/**
 * The guard's stop rules (design §1), in order: steps, wall time, budget, steps in which
 * every call failed, approval pauses, identical calls, cycles of two to four steps.
 * Returns null when the run may go on.
 */
export function checkLimits({ run, options, now, asksApproval = false }: LimitInput): LimitHit | null {
  if (run.steps > options.maxSteps) return { reason: "max_steps", rule: "max_steps", limit: options.maxSteps };
  if (now - run.startedAt > options.maxWallTimeMs) {
    return { reason: "timeout", rule: "timeout", limitMs: options.maxWallTimeMs };
  }
  if (run.tokens > options.tokenBudget) {
    return { reason: "budget_exhausted", rule: "tokens", tokens: run.tokens, costUsd: run.costUsd };
  }
  if (options.costBudgetUsd !== undefined && run.costUsd > options.costBudgetUsd) {
    return { reason: "budget_exhausted", rule: "cost", tokens: run.tokens, costUsd: run.costUsd };
  }
  if (run.failsInRow >= options.maxToolFailsInRow) {
    return { reason: "too_many_fails", rule: "failed_steps", steps: run.failsInRow };
  }
  if (asksApproval && (run.approvalPauses ?? 0) >= options.maxApprovalPauses) {
    return { reason: "loop_detected", rule: "approval_pauses", limit: options.maxApprovalPauses };
  }
  const recent = run.recentSteps;
  const window = recent.slice(-options.identicalCallLimit);
  if (window.length === options.identicalCallLimit && window.every((step) => step === window[0])) {
    return { reason: "loop_detected", rule: "identical_calls", times: options.identicalCallLimit };
  }
  const length = cycleLength(recent);
  return length === undefined ? null : { reason: "loop_detected", rule: "cycle", length };
}

/**
 * The length (2 to 4) of a cycle the newest steps went round twice, such as A→B→A→B or
 * A→B→C→A→B→C; undefined when there is none. Repeating one step is the identical-call rule's.
 */
export function cycleLength(recent: readonly string[]): number | undefined {
  for (let length = 2; length <= LONGEST_CYCLE; length++) {
    if (recent.length < 2 * length) return undefined;
    const last = recent.slice(-length);
    const before = recent.slice(-2 * length, -length);
    if (new Set(last).size > 1 && last.every((step, index) => step === before[index])) return length;
  }
  return undefined;
}

/** Tool name plus canonical args: what the identical-call guard compares. */
export function fingerprint(tool: string, args: unknown): string {
  return `${tool}:${canonicalJson(args ?? {})}`;
}

/** One step's calls as one fingerprint, independent of the order the model listed them in. */
export function stepFingerprint(calls: readonly ProposedCall[]): string {
  return calls
    .map((call) => fingerprint(call.name, call.args))
    .sort()
    .join("|");
}

/** In serial step mode, the one tool step `step` (1-based) may call; undefined when every tool may be called. */
export function allowedToolForStep(options: Pick<RunOptions, "stepTools">, step: number): string | undefined {
  const tools = options.stepTools;
  if (!tools || tools.length === 0) return undefined;
  return tools[Math.min(step, tools.length) - 1];
}

/** Names of the tools bound to the model at `step`. */
export function exposedTools(options: Pick<RunOptions, "stepTools">, step: number, registry: ToolRegistry): string[] {
  const allowed = allowedToolForStep(options, step);
  return allowed === undefined ? registry.names() : registry.names().filter((name) => name === allowed);
}

/** Whether any of the calls names a high-risk tool (or, in a tainted thread, an egress tool), so the step would wait for an approval. */
export function asksApproval(calls: readonly ProposedCall[], registry: ToolRegistry, tainted = false): boolean {
  return calls.some((call) => {
    const tool = registry.get(call.name);
    return tool?.risk === "high" || (tainted && tool?.egress === true);
  });
}

/** How one call of a step ended, as the failure breaker sees it. */
export interface StepResult {
  ok: boolean;
  errorCode?: string;
}

/**
 * The count of consecutive failed steps after a finished step (design §1): a step in which
 * every counted call failed adds one, any success resets it, and a step whose calls were all
 * rejected, cancelled or skipped leaves it as it was.
 */
export function failedStepsAfter(previous: number, results: readonly StepResult[]): number {
  const counted = results.filter((result) => result.ok || countsAsFailure(result.errorCode));
  if (counted.length === 0) return previous;
  return counted.some((result) => result.ok) ? 0 : previous + 1;
}

/** The results of a batch's calls, read from the ToolMessages that answer them. */
export function stepResults(messages: readonly BaseMessage[], calls: ReadonlyArray<{ callId: string }>): StepResult[] {
  const ids = new Set(calls.map((call) => call.callId));
  return messages
    .filter((message): message is ToolMessage => ToolMessage.isInstance(message) && ids.has(message.tool_call_id))
    .map((message) => {
      const meta = (message.artifact ?? {}) as Partial<ObservationMeta>;
      return { ok: meta.ok ?? message.status !== "error", ...(meta.errorCode ? { errorCode: meta.errorCode } : {}) };
    });
}

/** Whether a failed call counts in the run of failed steps (`ERROR_CLASSES`); a code the table does not know counts. */
function countsAsFailure(errorCode: string | undefined): boolean {
  if (errorCode === undefined || !Object.hasOwn(ERROR_CLASSES, errorCode)) return true;
  return ERROR_CLASSES[errorCode as ErrorCode].countsAsFailure;
}
