import { Command, type StateSnapshot } from "@langchain/langgraph";
import type { AgentStateType } from "../../graph/state.js";
import type { PauseValue } from "../../contracts/pause/pause.js";
import type { CurrentRoles, RunUser } from "../../contracts/user.js";
import { NotPausedError, OpsPilotError } from "../../contracts/errors.js";
import { expiredMessage, pendingInterrupt, waitingCalls } from "../../graph/pause.js";
import { PauseExpiredError } from "../../contracts/errors.js";
import type { ApprovalExpiredNotice } from "./expiry-notice.js";
import type { Planner } from "../runtime/run-plans.js";
import type { PauseDeadline } from "../../storage/types.js";

/** What the sweep finds when it looks at a thread whose deadline passed, under the thread's lease. */
export type ExpiryChoice =
  /** The same pause still waits and its time is up: it expires now. */
  | {
      kind: "expire";
      pause: PauseValue & { expiresAt: string };
      runId: string;
      /** What each waiting call will be answered, in the run's language. */
      messages: string[];
    }
  /** The thread no longer waits on that pause (answered, cancelled, superseded, expired by another process): forget the deadline. */
  | { kind: "stale" }
  /** The pause waits but its own deadline is later than the row said: look again then. */
  | { kind: "not_due" };

/**
 * Decides what the sweep does with a due deadline, from the thread's state read under its
 * lease; pure. Only the pause the deadline was written for, still waiting, with its
 * `expiresAt` passed, expires: so two processes that both saw the row expire it once.
 */
export function expiryChoice(snapshot: StateSnapshot, deadline: PauseDeadline, now: number): ExpiryChoice {
  const pause = pendingInterrupt(snapshot);
  const state = snapshot.values as Partial<AgentStateType>;
  if (!pause || pause.interruptId !== deadline.interruptId || !state.run || !state.batch) return { kind: "stale" };
  if (pause.expiresAt === undefined) return { kind: "stale" };
  const expiresAt = Date.parse(pause.expiresAt);
  if (expiresAt > now) return { kind: "not_due" };
  // The deadline is the pause's start (the run's last active moment) plus the wait allowed.
  const afterMs = expiresAt - state.run.lastActiveAt;
  const messages = waitingCalls(state.batch).map((call) => expiredMessage(call, afterMs, state.run!.language));
  return { kind: "expire", pause: { ...pause, expiresAt: pause.expiresAt }, runId: state.run.runId, messages };
}

/** The notice of an expiry that was planned. */
export function expiryNotice(
  threadId: string,
  choice: Extract<ExpiryChoice, { kind: "expire" }>,
): ApprovalExpiredNotice {
  return {
    type: "approval_expired",
    threadId,
    runId: choice.runId,
    interruptId: choice.pause.interruptId,
    expiresAt: choice.pause.expiresAt,
    tools: choice.pause.calls.map((call) => call.tool),
    messages: choice.messages,
  };
}

/** A person's answer planned with `planner`, refused as stale once the pause's approvals expired (the sweep may not have run yet). */
export function refuseExpired(threadId: string, planner: Planner, now: () => number = Date.now): Planner {
  return (snapshot, thread) => {
    const pause = pendingInterrupt(snapshot);
    if (pause?.expiresAt !== undefined && Date.parse(pause.expiresAt) <= now())
      throw new PauseExpiredError(threadId, pause.expiresAt);
    return planner(snapshot, thread);
  };
}

/** A pause whose deadline is later than its row said; the row is kept and looked at again. */
export class PauseNotDueError extends OpsPilotError {
  constructor(threadId: string) {
    super("pause_not_due", `The pause of thread ${threadId} has not expired yet.`, 409);
  }
}

/**
 * The planner of an expiry: resumes the paused run with opspilot's expiry answer, which
 * `review_calls` accepts only once the pause's deadline has passed. `onChoice` learns the
 * pause that expires, for the notice. Throws `NotPausedError` for a stale deadline.
 */
export function planExpiry(options: {
  deadline: PauseDeadline;
  now: () => number;
  onExpire: (choice: Extract<ExpiryChoice, { kind: "expire" }>) => void;
}): Planner {
  return (snapshot) => {
    const { deadline } = options;
    const choice = expiryChoice(snapshot, deadline, options.now());
    switch (choice.kind) {
      case "stale":
        throw new NotPausedError(deadline.threadId);
      case "not_due":
        throw new PauseNotDueError(deadline.threadId);
      case "expire":
        options.onExpire(choice);
        return {
          runId: choice.runId,
          input: new Command({ resume: { expire: { interruptId: choice.pause.interruptId } } }),
        };
      default: {
        const _exhaustive: never = choice;
        return _exhaustive;
      }
    }
  };
}

/**
 * Who the run goes on as once its pause expired: the user whose run paused, with the role they
 * paused with while they still hold it; one who lost it goes on as a viewer, the least role.
 */
export function continuingUser(deadline: PauseDeadline, currentRoles: CurrentRoles | undefined): RunUser {
  const roles = currentRoles?.(deadline.userId);
  const role = roles === undefined || roles.includes(deadline.role) ? deadline.role : "viewer";
  return { id: deadline.userId, role };
}
