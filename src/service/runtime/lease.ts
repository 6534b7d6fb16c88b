import { randomUUID } from "node:crypto";
import type { Storage } from "../../storage/types.js";
import type { CancellationRegistry } from "./cancellation.js";
import type { Logger } from "../observability/logger.js";

/** How often a running run checks for a cancel asked through another process. */
const CANCEL_POLL_MS = 250;

/** How long a run's lease lasts without a heartbeat: a process that died frees its threads after this. */
const LEASE_TTL_MS = 60_000;

/** How often a running run renews its lease. */
const RENEW_EVERY_POLLS = 40;

/** A thread's run lease held by this process: only its holder may change the thread. */
export interface ThreadLease {
  /** Id of this holder in the lease table. */
  readonly leaseId: string;
  /** Frees the thread; safe to call more than once. */
  release(): Promise<void>;
}

/** A lease held by a running run: heartbeats, cancels from any process, and this run's abort signal. */
export interface RunLease extends ThreadLease {
  /** Aborted when the user cancels the run, here or through another process. */
  readonly controller: AbortController;
}

/** Takes the thread's lease, or returns undefined when another live run holds it. */
export async function tryLease(storage: Storage, threadId: string): Promise<ThreadLease | undefined> {
  const leaseId = randomUUID();
  if (!(await storage.acquireLease(threadId, leaseId, LEASE_TTL_MS))) return undefined;
  let released = false;
  return {
    leaseId,
    async release() {
      if (released) return;
      released = true;
      await storage.releaseLease(threadId, leaseId);
    },
  };
}

/**
 * Turns a held lease into a run's lease: renews it every 10 s, and aborts the run's
 * controller when a cancel is asked here or through another process (polled every 250 ms).
 * Releasing stops both and frees the thread.
 */
export function holdForRun(options: {
  storage: Storage;
  threadId: string;
  lease: ThreadLease;
  cancellations: CancellationRegistry;
  logger: Logger;
}): RunLease {
  const { storage, threadId, lease, cancellations, logger } = options;
  const controller = cancellations.begin(threadId);
  let polls = 0;
  const timer = setInterval(() => {
    polls += 1;
    if (polls % RENEW_EVERY_POLLS === 0) {
      storage
        .renewLease(threadId, lease.leaseId, LEASE_TTL_MS)
        .catch((error: unknown) => logger.error("could not renew a run's lease", error));
    }
    storage.cancelRequested(threadId, lease.leaseId).then(
      (requested) => requested && controller.abort(new Error("cancelled by the user")),
      (error: unknown) => logger.error("could not check for a cancel request", error),
    );
  }, CANCEL_POLL_MS);
  timer.unref();
  return {
    leaseId: lease.leaseId,
    controller,
    async release() {
      clearInterval(timer);
      cancellations.end(threadId, controller);
      await lease.release();
    },
  };
}
