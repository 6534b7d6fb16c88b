import { isContextOverflow } from "../context/context-overflow.js";
import type { ModelFailure } from "../contracts/model-failure.js";

export { MODEL_FAILURE_REASONS, type ModelFailure, type ModelFailureReason } from "../contracts/model-failure.js";

/** Classifies a model call's final error (after its retries); `host` is the endpoint's, when the model has one. */
export function classifyModelFailure(error: unknown, host?: string): ModelFailure {
  const object = (typeof error === "object" && error !== null ? error : {}) as {
    status?: unknown;
    name?: unknown;
    message?: unknown;
    requestID?: unknown;
    headers?: unknown;
    cause?: { code?: unknown };
  };
  const status = typeof object.status === "number" ? object.status : undefined;
  const code = typeof object.cause?.code === "string" ? object.cause.code : undefined;
  const name = typeof object.name === "string" && object.name !== "Error" ? object.name : undefined;
  const errorClass = code ?? name ?? (error instanceof Error ? error.constructor.name : typeof error);
  const requestId = requestIdOf(object);
  return {
    reason: reasonOf(error, status, name, String(object.message ?? "")),
    ...(host ? { host } : {}),
    ...(status !== undefined ? { status } : {}),
    errorClass,
    ...(requestId ? { requestId } : {}),
  };
}

function reasonOf(error: unknown, status: number | undefined, name: string | undefined, message: string) {
  if (isContextOverflow(error)) return "context_length";
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limited";
  if (status === 408 || name === "TimeoutError" || /timeout|timed out/i.test(message)) return "timeout";
  if (status !== undefined && status >= 500) return "server_error";
  if (status !== undefined && status >= 400) return "bad_request";
  return "unreachable";
}

function requestIdOf(error: { requestID?: unknown; headers?: unknown }): string | undefined {
  if (typeof error.requestID === "string" && error.requestID.length > 0) return error.requestID;
  const headers = error.headers;
  for (const name of ["x-request-id", "request-id"]) {
    const value =
      headers instanceof Headers
        ? headers.get(name)
        : headers && typeof headers === "object"
          ? (headers as Record<string, unknown>)[name]
          : undefined;
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
}

/**
 * The warn line of a model call that failed for good: the run, and the cause as `key=value`
 * pairs (why, the endpoint's host, the HTTP status, the error class, the request id; never a key).
 */
export function modelFailureLine(where: { runId: string; threadId: string }, failure: ModelFailure): string {
  const parts = [
    `reason=${failure.reason}`,
    `host=${failure.host ?? "unknown"}`,
    `status=${failure.status ?? "none"}`,
    `error=${failure.errorClass}`,
    ...(failure.requestId ? [`request_id=${failure.requestId}`] : []),
  ];
  return `model call failed for run ${where.runId} on thread ${where.threadId}: ${parts.join(" ")}`;
}
