import { NotPausedError, ThreadBusyError, ThreadNotFoundError } from "../../contracts/errors.js";
import type { StreamEvent } from "../../contracts/events.js";
import type { PauseDeadline, PauseDeadlineStore } from "../../storage/types.js";
import { followedRuns } from "../events/followed-runs.js";
import type { Logger } from "../observability/logger.js";
import { PauseNotDueError } from "./expiry-plan.js";
import type { ApprovalExpiredNotice } from "./expiry-notice.js";

/** How often the `approval-expiry` job looks for pauses whose approvals expired. */
export const EXPIRY_SWEEP_MS = 1_000;

/** Deadlines one pass looks at, earliest first; the rest wait for the next pass. */
const DUE_PER_PASS = 50;

/** What the sweep asks of the runtime: the one thing it cannot do itself. */
export interface PauseExpirer {
  /**
   * Expires the deadline's pause under the thread's lease and goes on with its run: its events
   * and the notice to send, or the runtime's refusal (busy, stale, not due) thrown.
   */
  expire(deadline: PauseDeadline): Promise<{ events: AsyncIterable<StreamEvent>; notice: ApprovalExpiredNotice }>;
}

/** What the sweep needs. */
export interface ApprovalExpiryDeps {
  store: PauseDeadlineStore;
  expirer: PauseExpirer;
  /** Told of each pause this process expired (the expiry notice); must return at once. */
  onExpired?: (notice: ApprovalExpiredNotice) => void;
  logger: Logger;
  /** The clock (epoch ms). */
  now?: () => number;
}

/** What became of one due deadline in a pass. */
export type SweepOutcome = "expired" | "busy" | "stale" | "not_due" | "failed";

/** Expires waiting pauses whose time is up (the `approval-expiry` job sweeps); `close` before the runtime closes. */
export interface ApprovalExpiry {
  /** One pass over the due deadlines (passes never overlap); what became of each, in order. */
  sweep(): Promise<SweepOutcome[]>;
  /** Stops sweeping and waits for the pass under way. */
  close(): Promise<void>;
}

/**
 * The expiry sweep. Any number of processes may run it on the same database: each due
 * deadline is acted on only under the thread's lease and only while the same pause still waits
 * with its time passed (`expiryChoice`), so one process expires it and the others find the
 * thread busy, then the deadline gone. A busy thread (a run holds it) is looked at again next
 * pass; a stale deadline (the pause was answered, cancelled or superseded) is forgotten.
 */
export function createApprovalExpiry(deps: ApprovalExpiryDeps): ApprovalExpiry {
  const { store, logger } = deps;
  const now = deps.now ?? Date.now;
  const runs = followedRuns(logger);
  let pass: Promise<SweepOutcome[]> = Promise.resolve([]);
  let closed = false;

  /** Reads the continued run to its end in the background, as nobody waits for its stream. */
  function follow(events: AsyncIterable<StreamEvent>): void {
    runs.follow(events, "the run after an expired approval failed");
  }

  async function expireOne(deadline: PauseDeadline): Promise<SweepOutcome> {
    try {
      const { events, notice } = await deps.expirer.expire(deadline);
      follow(events);
      await store.forgetDeadline(deadline.threadId, deadline.interruptId);
      notify(notice);
      return "expired";
    } catch (error) {
      if (error instanceof ThreadBusyError) return "busy";
      if (error instanceof PauseNotDueError) return "not_due";
      if (error instanceof NotPausedError || error instanceof ThreadNotFoundError) {
        await store.forgetDeadline(deadline.threadId, deadline.interruptId);
        return "stale";
      }
      // Kept: a database that failed now may answer on the next pass.
      logger.error(`could not expire the pause of thread ${deadline.threadId}`, error);
      return "failed";
    }
  }

  function notify(notice: ApprovalExpiredNotice): void {
    try {
      deps.onExpired?.(notice);
    } catch (error) {
      logger.error("the expiry notifier failed", error);
    }
  }

  async function sweepOnce(): Promise<SweepOutcome[]> {
    const outcomes: SweepOutcome[] = [];
    for (const deadline of await store.dueDeadlines(now(), DUE_PER_PASS)) {
      if (closed) break;
      outcomes.push(await expireOne(deadline));
    }
    return outcomes;
  }

  function sweep(): Promise<SweepOutcome[]> {
    const next = pass.then(sweepOnce, sweepOnce);
    // A failed pass is the caller's to report (the engine logs and counts it); the next goes on.
    pass = next.catch(() => []);
    return next;
  }

  return {
    sweep,
    async close() {
      closed = true;
      // The runs it started are the runtime's like any other: its close lets them finish or cancels them.
      await pass;
    },
  };
}
