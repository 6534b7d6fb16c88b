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
  "approval_expired",
  "skipped",
  "outcome_unknown",
  "internal",
] as const;

/** One error class of a failed observation. */
export const ErrorCodeSchema = z.enum(ERROR_CODES);
/** One error class of a failed observation. */
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** How a call's record ends (`CallRecordOutcome` without `ok` and `interrupt`). */
export type ErrorRecordOutcome = "error" | "rejected" | "cancelled" | "skipped";

/** How the loop treats one error class: every rule about error classes reads it from `ERROR_CLASSES`. */
export interface ErrorClass {
  /** A read tool's failed attempt with this code is tried once more (design §2.4). */
  retry: boolean;
  /** Counts in `too_many_fails`' run of failed steps; false: not the tool's fault, so it neither counts nor breaks the run. */
  countsAsFailure: boolean;
  /** The result holds what the tool returned; false: the tool never ran, or the executor wrote what became of it. */
  toolContent: boolean;
  /** The tool's configured fallbacks are offered; never after a refusal, a rejection, a cancel or an unknown write outcome. */
  fallback: boolean;
  /** Refused before running: the request was wrong and nothing changed (the model can correct it; the CLI exits 2). */
  refused: boolean;
  /** A write that ended with this code may have taken effect. */
  mayHaveRun: boolean;
  /** How the call's record ends; an expired approval was not given, so it is recorded like a rejection. */
  record: ErrorRecordOutcome;
}

const NO = false;
const YES = true;

/** The one table of error classes (design §2.4); the executor, the guard, the policy, the records, the CLI and eval read it. */
export const ERROR_CLASSES: Readonly<Record<ErrorCode, ErrorClass>> = {
  // prettier-ignore
  invalid_args:      { retry: NO,  countsAsFailure: YES, toolContent: NO,  fallback: NO,  refused: YES, mayHaveRun: NO,  record: "error" },
  // prettier-ignore
  unknown_tool:      { retry: NO,  countsAsFailure: YES, toolContent: NO,  fallback: NO,  refused: YES, mayHaveRun: NO,  record: "error" },
  // prettier-ignore
  permission_denied: { retry: NO,  countsAsFailure: YES, toolContent: NO,  fallback: NO,  refused: YES, mayHaveRun: NO,  record: "error" },
  // prettier-ignore
  not_found:         { retry: NO,  countsAsFailure: YES, toolContent: YES, fallback: YES, refused: NO,  mayHaveRun: NO,  record: "error" },
  // prettier-ignore
  timeout:           { retry: YES, countsAsFailure: YES, toolContent: NO,  fallback: YES, refused: NO,  mayHaveRun: YES, record: "error" },
  // prettier-ignore
  transient:         { retry: YES, countsAsFailure: YES, toolContent: YES, fallback: YES, refused: NO,  mayHaveRun: NO,  record: "error" },
  // prettier-ignore
  rate_limited:      { retry: YES, countsAsFailure: YES, toolContent: NO,  fallback: YES, refused: YES, mayHaveRun: NO,  record: "error" },
  // prettier-ignore
  cancelled:         { retry: NO,  countsAsFailure: NO,  toolContent: NO,  fallback: NO,  refused: NO,  mayHaveRun: NO,  record: "cancelled" },
  // prettier-ignore
  rejected_by_user:  { retry: NO,  countsAsFailure: NO,  toolContent: NO,  fallback: NO,  refused: NO,  mayHaveRun: NO,  record: "rejected" },
  // prettier-ignore
  approval_expired:  { retry: NO,  countsAsFailure: NO,  toolContent: NO,  fallback: NO,  refused: NO,  mayHaveRun: NO,  record: "rejected" },
  // prettier-ignore
  skipped:           { retry: NO,  countsAsFailure: NO,  toolContent: NO,  fallback: NO,  refused: YES, mayHaveRun: NO,  record: "skipped" },
  // prettier-ignore
  outcome_unknown:   { retry: NO,  countsAsFailure: YES, toolContent: NO,  fallback: NO,  refused: NO,  mayHaveRun: YES, record: "error" },
  // prettier-ignore
  internal:          { retry: NO,  countsAsFailure: YES, toolContent: YES, fallback: YES, refused: NO,  mayHaveRun: YES, record: "error" },
};

/** The error codes whose class has `flag` set, as a set (for the rules that test membership). */
export function errorCodesWith(flag: Exclude<keyof ErrorClass, "record">): ReadonlySet<ErrorCode> {
  return new Set(ErrorCodeSchema.options.filter((code) => ERROR_CLASSES[code][flag]));
}

/** Whether a result with this error code (none: a success) holds what its tool returned, not the loop's own words. */
export function carriesToolContent(errorCode: ErrorCode | undefined): boolean {
  return errorCode === undefined || ERROR_CLASSES[errorCode].toolContent;
}

/** Error codes the executor retries once before they become an observation. */
export const RETRYABLE: ReadonlySet<ErrorCode> = errorCodesWith("retry");
