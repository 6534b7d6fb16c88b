import { END } from "@langchain/langgraph";
import type { AgentStateType } from "./state.js";
import { waitingCalls } from "./pause.js";
import { previewsDue } from "./calls/previews.js";

/** After `call_model`'s reply: tool calls go to the guard stage; an answer or a failed model call ends; a cancel finishes. */
export function routeAfterModel(state: AgentStateType): "guard_calls" | "finish_run" | typeof END {
  if (state.stop?.reason === "cancelled") return "finish_run";
  if (state.stop) return END;
  return "guard_calls";
}

/** After the `guard_calls` stage: a hit limit finishes the run, otherwise the calls are validated. */
export function routeAfterGuard(state: AgentStateType): "validate_calls" | "finish_run" {
  return state.stop ? "finish_run" : "validate_calls";
}

/**
 * After the `validate_calls` stage: run what can run first (so its results are recorded before
 * a pause) and the waiting writes' dry runs (so the pause shows them), else pause.
 */
export function routeAfterValidate(state: AgentStateType): "execute_tools" | "review_calls" {
  const runnable = (state.batch?.calls ?? []).some((call) => call.status === "ready" || call.status === "failed");
  return runnable || previewsDue(state.batch) || waitingCalls(state.batch).length === 0
    ? "execute_tools"
    : "review_calls";
}

/** After `review_calls`: a refused answer pauses again (a new execution, so the refused answer is never replayed), else the decided calls run. */
export function routeAfterReview(state: AgentStateType): "review_calls" | "execute_tools" {
  return waitingCalls(state.batch).length > 0 ? "review_calls" : "execute_tools";
}

/** After `execute_tools`: a cancel finishes, waiting calls pause, otherwise the model reads the results. */
export function routeAfterExecute(state: AgentStateType): "call_model" | "review_calls" | "finish_run" {
  if (state.stop?.reason === "cancelled") return "finish_run";
  return waitingCalls(state.batch).length > 0 ? "review_calls" : "call_model";
}
