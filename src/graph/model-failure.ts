import { isContextOverflow } from "../context/context-overflow.js";

/** Why a model call failed for good, in the words of `opspilot_model_errors_total{reason}`. */
export type ModelFailureReason =
  "unreachable" | "timeout" | "auth" | "rate_limited" | "server_error" | "bad_request" | "context_length";

/** Every reason, in the order the metric presets them. */
export const MODEL_FAILURE_REASONS: readonly ModelFailureReason[] = [
  "unreachable",
  "timeout",
  "auth",
  "rate_limited",
  "server_error",
  "bad_request",
  "context_length",
];

/** What a failed model call's error says, without its message (which may quote the request) or any key. */
export interface ModelFailure {
  reason: ModelFailureReason;
  /** The HTTP status, when the endpoint answered. */
  status?: number;
  /** The error's class or system code (`APIConnectionError`, `ECONNREFUSED`, `TimeoutError`). */
  errorClass: string;
  /** The provider's request id, when its answer carried one (`x-request-id`, `request-id`). */
  requestId?: string;
}

/** Classifies a model call's final error (after its retries). */
export function classifyModelFailure(error: unknown): ModelFailure {
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
