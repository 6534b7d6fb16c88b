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

/**
 * What a failed model call's error says, without its message (which may quote the request) or
 * any key: the warn line, the run's state and its record (`model_error`) keep it.
 */
export interface ModelFailure {
  reason: ModelFailureReason;
  /** The endpoint's host and port (`api.openai.com`, `127.0.0.1:11434`), never its path or key; absent when unknown. */
  host?: string;
  /** The HTTP status, when the endpoint answered. */
  status?: number;
  /** The error's class or system code (`APIConnectionError`, `ECONNREFUSED`, `TimeoutError`). */
  errorClass: string;
  /** The provider's request id, when its answer carried one (`x-request-id`, `request-id`). */
  requestId?: string;
}
