import type { ErrorCode } from "./observation.js";

/** Base of opspilot's application errors: each has a stable `code`. */
export class OpsPilotError extends Error {
  constructor(
    /** Stable machine-readable code (HTTP bodies, CLI exit messages). */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "OpsPilotError";
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
    this.name = "ToolError";
  }
}

/** The configuration (environment) is not usable; reported as one line at start-up. */
export class ConfigError extends OpsPilotError {
  constructor(message: string) {
    super("config_invalid", message);
    this.name = "ConfigError";
  }
}

/** A resume value does not fit the pause it answers; nothing was changed. */
export class ResumeRejectedError extends OpsPilotError {
  constructor(message: string) {
    super("resume_rejected", message);
    this.name = "ResumeRejectedError";
  }
}

/** The thread is not waiting for the user, so there is nothing to resume. */
export class NotPausedError extends OpsPilotError {
  constructor(threadId: string) {
    super("not_paused", `Thread ${threadId} is not waiting for input.`);
    this.name = "NotPausedError";
  }
}

/** Another run of the same thread is in progress. */
export class ThreadBusyError extends OpsPilotError {
  constructor(threadId: string) {
    super("thread_busy", `Thread ${threadId} is already running; wait for it to finish or cancel it.`);
    this.name = "ThreadBusyError";
  }
}

/** The thread does not exist or belongs to another user. */
export class ThreadNotFoundError extends OpsPilotError {
  constructor(threadId: string) {
    super("thread_not_found", `Thread ${threadId} was not found.`);
    this.name = "ThreadNotFoundError";
  }
}

/** A thread is paused and a new message was sent instead of a resume. */
export class ThreadPausedError extends OpsPilotError {
  constructor(threadId: string) {
    super(
      "thread_paused",
      `Thread ${threadId} is waiting for your answer; resume it or reject the pending calls first.`,
    );
    this.name = "ThreadPausedError";
  }
}

/** A broken loop invariant (design §2): always a bug. */
export class InvariantViolationError extends OpsPilotError {
  constructor(message: string) {
    super("invariant_violation", message);
    this.name = "InvariantViolationError";
  }
}

/** The thread's last run stopped mid-step (its process died); it must be recovered before anything else. */
export class ThreadUnfinishedError extends OpsPilotError {
  constructor(threadId: string) {
    super("thread_unfinished", `Thread ${threadId} has an unfinished run whose process stopped; recover it first.`);
    this.name = "ThreadUnfinishedError";
  }
}

/** There is nothing to recover on the thread. */
export class NothingToRecoverError extends OpsPilotError {
  constructor(threadId: string) {
    super("nothing_to_recover", `Thread ${threadId} has no unfinished run.`);
    this.name = "NothingToRecoverError";
  }
}
