import { z } from "zod";

/** Every error class a tool call can end in; decided by code, never by the model (design §2.4). */
const ERROR_CODES = [
  "invalid_args",
  "unknown_tool",
  "permission_denied",
  "not_found",
  "timeout",
  "transient",
  "rate_limited",
  "cancelled",
  "rejected_by_user",
  "skipped",
  "outcome_unknown",
  "internal",
] as const;

/** One error class of a failed observation. */
export const ErrorCodeSchema = z.enum(ERROR_CODES);
/** One error class of a failed observation. */
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** What a tool call produced, as the model reads it. */
export type Observation =
  | { ok: true; data: unknown; truncated?: { originalChars: number; keptChars: number } }
  | { ok: false; errorCode: ErrorCode; message: string };

/** Metadata kept on every ToolMessage's `artifact`; never sent to the model. */
export interface ObservationMeta {
  /** Whether the call succeeded. */
  ok: boolean;
  /** Error class when it failed. */
  errorCode?: ErrorCode;
  /** One line for the step bar and the records. */
  summary: string;
  /** Wall time of the call, retries included. */
  durationMs: number;
  /** Attempts made (1 or 2). */
  attempts: number;
  /** Whether the observation was cut to the size cap. */
  truncated: boolean;
}


/** Error codes the executor retries once before they become an observation. */
export const RETRYABLE: ReadonlySet<ErrorCode> = new Set(["transient", "timeout", "rate_limited"]);
