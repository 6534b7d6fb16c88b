import type { ModelFailure } from "../../graph/model-failure.js";

/** The warn line of a model call that failed for good: why, the HTTP status, the error class and the request id (never a key). */
export function modelFailureLine(options: { runId: string; threadId: string }, failure: ModelFailure): string {
  const parts = [
    `reason=${failure.reason}`,
    `status=${failure.status ?? "none"}`,
    `error=${failure.errorClass}`,
    ...(failure.requestId ? [`request_id=${failure.requestId}`] : []),
  ];
  return `model call failed for run ${options.runId} on thread ${options.threadId}: ${parts.join(" ")}`;
}
