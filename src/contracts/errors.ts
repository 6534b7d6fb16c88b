import type { ErrorCode } from "./observation.js";
import { MAX_MESSAGE_CHARS } from "./limits.js";

/**
 * HTTP status of each application error code, beside the code so the server, the CLI and
 * the docs cannot disagree. Codes at 500 are faults: the server logs them and answers a
 * plain "Internal error".
 */
const HTTP_STATUS_BY_CODE: Readonly<Record<string, number>> = {
  config_invalid: 500,
  invariant_violation: 500,
  thread_not_found: 404,
  permission_denied: 403,
  thread_busy: 409,
  thread_paused: 409,
  not_paused: 409,
  thread_unfinished: 409,
  nothing_to_recover: 409,
  resume_rejected: 422,
  thread_id_required: 400,
  limit_above_ceiling: 400,
  unknown_profile: 400,
  quota_exceeded: 429,
  invalid_request: 400,
};

/** Base of opspilot's application errors: each has a stable `code` and the HTTP status that answers it. */
export class OpsPilotError extends Error {
  constructor(
    /** Stable machine-readable code (HTTP bodies, CLI exit messages). */
    readonly code: string,
    message: string,
    /** HTTP status a server answers with. */
    readonly status: number = HTTP_STATUS_BY_CODE[code] ?? 500,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A tool's classified failure: the executor turns it into `{ ok: false, errorCode, message }`. */
export class ToolError extends Error {
  constructor(
    /** Error class of design §2.4. */
    readonly errorCode: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The configuration (environment) is not usable; reported as one line at start-up. */
export class ConfigError extends OpsPilotError {
  constructor(message: string) {
    super("config_invalid", message);
  }
}

/** A resume value does not fit the pause it answers; nothing was changed. */
export class ResumeRejectedError extends OpsPilotError {
  constructor(message: string) {
    super("resume_rejected", message);
  }
}

/** The answering user (or the thread's owner) may not run a tool the answer would approve; nothing was changed. */
export class PermissionDeniedError extends OpsPilotError {
  constructor(message: string) {
    super("permission_denied", message);
  }
}

/** The thread is not waiting for the user, so there is nothing to resume. */
export class NotPausedError extends OpsPilotError {
  constructor(threadId: string) {
    super("not_paused", `Thread ${threadId} is not waiting for input.`);
  }
}

/** An answer to a pause whose approvals expired: the stale-pause refusal (`not_paused`), saying when and why. */
export class PauseExpiredError extends OpsPilotError {
  constructor(threadId: string, expiresAt: string) {
    super(
      "not_paused",
      `Thread ${threadId} no longer waits for this answer: its approval expired at ${expiresAt}, so the waiting calls are answered approval_expired and the run goes on without them.`,
    );
  }
}

/** Another run of the same thread is in progress. */
export class ThreadBusyError extends OpsPilotError {
  constructor(threadId: string) {
    super("thread_busy", `Thread ${threadId} is already running; wait for it to finish or cancel it.`);
  }
}

/** The thread does not exist or belongs to another user. */
export class ThreadNotFoundError extends OpsPilotError {
  constructor(threadId: string) {
    super("thread_not_found", `Thread ${threadId} was not found.`);
  }
}

/** A thread is paused and a new message was sent instead of a resume. */
export class ThreadPausedError extends OpsPilotError {
  constructor(threadId: string) {
    super(
      "thread_paused",
      `Thread ${threadId} is waiting for your answer; resume it or reject the pending calls first.`,
    );
  }
}

/** A broken loop invariant (design §2): always a bug. */
export class InvariantViolationError extends OpsPilotError {
  constructor(message: string) {
    super("invariant_violation", message);
  }
}

/** The thread's last run stopped mid-step (its process died); it must be recovered before anything else. */
export class ThreadUnfinishedError extends OpsPilotError {
  constructor(threadId: string) {
    super("thread_unfinished", `Thread ${threadId} has an unfinished run whose process stopped; recover it first.`);
  }
}

/** There is nothing to recover on the thread. */
export class NothingToRecoverError extends OpsPilotError {
  constructor(threadId: string) {
    super("nothing_to_recover", `Thread ${threadId} has no unfinished run.`);
  }
}

/** A graph invocation without `configurable.thread_id`: the loop needs a thread to key its writes. */
export class ThreadIdRequiredError extends OpsPilotError {
  constructor() {
    super(
      "thread_id_required",
      "A thread id is required: pass configurable.thread_id (every opspilot run belongs to a thread).",
    );
  }
}

/** A run asked for a limit looser than the server allows; nothing was started. */
export class LimitAboveCeilingError extends OpsPilotError {
  constructor(
    /** The limit asked for (`maxSteps`, `tokenBudget`, ...). */
    readonly limit: string,
    /** The value asked for. */
    readonly value: number,
    /** The server's ceiling for it. */
    readonly ceiling: number,
    /** Where the ceiling is set, e.g. the environment variable. */
    setBy: string,
  ) {
    super(
      "limit_above_ceiling",
      `${limit} ${value} is above the server's ceiling of ${ceiling} (${setBy}); a run may only tighten it.`,
    );
  }
}

/** A run named a profile the config file does not define. */
export class UnknownProfileError extends OpsPilotError {
  constructor(profile: string, known: readonly string[]) {
    super(
      "unknown_profile",
      `Profile "${profile}" is not defined; ${known.length > 0 ? `the config file defines ${known.join(", ")}` : "the config file defines none"}.`,
    );
  }
}

/** The user spent a daily quota; nothing was started until it resets. */
export class QuotaExceededError extends OpsPilotError {
  constructor(
    /** Which quota: `runs`, `tokens` or `costUsd`. */
    readonly quota: string,
    /** When the quota resets: the next UTC midnight, as an ISO timestamp. */
    readonly resetsAt: string,
    /** Seconds until then, for `Retry-After`. */
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super("quota_exceeded", message);
  }
}

/** Run options (a run's `context` or `configurable`) that fail their schema, said per field in one line. */
export class InvalidRunOptionsError extends OpsPilotError {
  constructor(issues: string) {
    super(
      "invalid_request",
      `Invalid run options: ${issues}. Fix the run's context (or configurable) and start it again.`,
    );
  }
}

/** A message over `MAX_MESSAGE_CHARS`: refused before anything starts, in the same words by the API, the runtime and the CLI. */
export class MessageTooLongError extends OpsPilotError {
  constructor(
    /** Characters of the (trimmed) message. */
    readonly length: number,
  ) {
    super(
      "invalid_request",
      `The message is ${length} characters long; at most ${MAX_MESSAGE_CHARS} are accepted. Shorten it or split it into several messages.`,
    );
  }
}

/** Throws `MessageTooLongError` when the message, trimmed, is longer than `MAX_MESSAGE_CHARS`. */
export function assertMessageFits(message: string): void {
  const length = message.trim().length;
  if (length > MAX_MESSAGE_CHARS) throw new MessageTooLongError(length);
}
