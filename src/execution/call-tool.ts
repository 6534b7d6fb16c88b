import { isGraphBubbleUp } from "@langchain/langgraph";
import { ToolError } from "../contracts/errors.js";
import { classifyFailure } from "./classify.js";
import type { ErrorCode, Observation } from "../contracts/observation.js";
import { ERROR_CLASSES } from "../contracts/error-codes.js";
import { isUserInputRequest, type ToolContext, type ToolDefinition, type UserInputRequest } from "../tools/types.js";
import { sourceOf } from "../tools/tool-view.js";

/** How one call ended: an observation with its raw result, or a request for the user. */
export type CallOutcome =
  | { kind: "observation"; observation: Observation; raw: unknown; durationMs: number; attempts: number }
  | { kind: "needs_user"; request: UserInputRequest; durationMs: number; attempts: number };

/** Everything a single invocation needs. */
export interface RunCallOptions {
  /** The tool to run. */
  tool: ToolDefinition;
  /** Validated args. */
  args: Record<string, unknown>;
  /** Context without the signal; each attempt gets its own. */
  context: Omit<ToolContext, "signal">;
  /** Cancels the run; the call ends as `cancelled`. */
  signal: AbortSignal;
  /**
   * Decides once, before the first attempt, whether the call may reach the tool (rate
   * limits, a server that is down); a refusal becomes the call's observation.
   */
  admit?: () => Promise<Observation | undefined>;
}

/**
 * Runs one tool call with its timeout. A read is retried once on transient, timeout and
 * rate-limit failures; a write only when it is idempotent and timed out, because a write
 * that failed any other way may have taken effect. Never throws: every failure is an
 * observation, stamped with its source and the time it was obtained.
 */
export async function runCall(options: RunCallOptions): Promise<CallOutcome> {
  const started = performance.now();
  const refused = await options.admit?.();
  if (refused)
    return {
      kind: "observation",
      observation: stamped(refused, options.tool),
      raw: undefined,
      durationMs: 0,
      attempts: 0,
    };
  let attempts = 0;
  let last: Observation | undefined;
  while (attempts < 2) {
    attempts += 1;
    const attempt = await runAttempt(options);
    const durationMs = Math.round(performance.now() - started);
    if (attempt.kind === "needs_user") return { ...attempt, durationMs, attempts };
    last = attempt.observation;
    if (last.ok || !mayRetry(options.tool, last.errorCode) || options.signal.aborted) {
      return { kind: "observation", observation: stamped(last, options.tool), raw: attempt.raw, durationMs, attempts };
    }
  }
  return {
    kind: "observation",
    observation: stamped(last!, options.tool),
    raw: undefined,
    durationMs: Math.round(performance.now() - started),
    attempts,
  };
}

/** Whether a failed attempt may run again (design §2.4, and at most once per write unless it is idempotent). */
function mayRetry(tool: ToolDefinition, errorCode: ErrorCode): boolean {
  if (tool.readOnly) return ERROR_CLASSES[errorCode].retry;
  return tool.idempotent === true && errorCode === "timeout";
}

/** The observation with where and when it came from (design §3). */
function stamped(observation: Observation, tool: ToolDefinition): Observation {
  return { ...observation, source: sourceOf(tool), fetchedAt: new Date().toISOString() };
}

type AttemptResult =
  { kind: "observation"; observation: Observation; raw: unknown } | { kind: "needs_user"; request: UserInputRequest };

async function runAttempt({ tool, args, context, signal }: RunCallOptions): Promise<AttemptResult> {
  if (signal.aborted) return cancelled(tool.name);
  // One controller per attempt, aborted by the run's cancel or by the time limit: a quarter of
  // the cost of AbortSignal.any over AbortSignal.timeout, and nothing of it outlives the attempt.
  const attempt = new AbortController();
  const attemptSignal = attempt.signal;
  const onCancel = () => attempt.abort(signal.reason);
  signal.addEventListener("abort", onCancel, { once: true });
  // A plain timer, unlike AbortSignal.timeout's, keeps Node alive: a CLI whose only pending work
  // is a hung tool would otherwise exit before the limit fires.
  const limit = setTimeout(() => attempt.abort(timeoutReason()), tool.timeoutMs);
  const abortError = () =>
    signal.aborted
      ? new ToolError("cancelled", `${tool.name} was cancelled.`)
      : new ToolError("timeout", `${tool.name} did not answer within ${tool.timeoutMs} ms.`);
  let onAbort: (() => void) | undefined;
  // The race matters: a tool that ignores its signal must not hold the batch.
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError());
    attemptSignal.addEventListener("abort", onAbort, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    const value = await Promise.race([
      Promise.resolve().then(() => tool.run(args, { ...context, signal: attemptSignal })),
      stopped,
    ]);
    if (isUserInputRequest(value)) return { kind: "needs_user", request: value };
    if (!isJsonSafe(value)) {
      return {
        kind: "observation",
        observation: { ok: false, errorCode: "internal", message: `${tool.name} returned a result that is not JSON.` },
        raw: undefined,
      };
    }
    return { kind: "observation", observation: { ok: true, data: value ?? null }, raw: value };
  } catch (error) {
    // LangGraph's own control flow (an interrupt raised inside a tool) belongs to the graph, not to the model.
    if (isGraphBubbleUp(error)) throw error;
    const { errorCode, message } = classifyFailure(tool.name, attemptSignal.aborted ? abortError() : error);
    return { kind: "observation", observation: { ok: false, errorCode, message }, raw: undefined };
  } finally {
    clearTimeout(limit);
    signal.removeEventListener("abort", onCancel);
    if (onAbort) attemptSignal.removeEventListener("abort", onAbort);
  }
}

/** The reason a timed-out attempt's signal carries: what AbortSignal.timeout gives, so tools see the usual error. */
function timeoutReason(): DOMException {
  return new DOMException("The operation was aborted due to timeout", "TimeoutError");
}

function cancelled(tool: string): AttemptResult {
  return {
    kind: "observation",
    observation: { ok: false, errorCode: "cancelled", message: `${tool} was cancelled before it ran.` },
    raw: undefined,
  };
}

/** Whether a tool's result survives JSON (no cycles, no BigInt): anything else is a misbehaving tool. */
function isJsonSafe(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}
