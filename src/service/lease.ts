import type { Storage } from "../storage/types.js";
import type { RuntimeLogger } from "./logger.js";

/** How often a running run checks for a cancel asked through another process. */
const CANCEL_POLL_MS = 250;

/** How long a run's lease lasts without a heartbeat: a process that died frees its threads after this. */
export const LEASE_TTL_MS = 60_000;

/** How often a running run renews its lease. */
const RENEW_EVERY_POLLS = 40;

/** On close, how long cancelled runs get to write their final answer. */
export const SHUTDOWN_CANCEL_MS = 5_000;

/**
 * Keeps a run's lease alive (renewed every 10 s) and lets a cancel asked through another
 * process reach the run: polls the lease and aborts `controller` when a cancel was
 * requested. Returns the function that stops both.
 */
export function watchLease(options: {
  storage: Storage;
  threadId: string;
  leaseId: string;
  controller: AbortController;
  logger: RuntimeLogger;
}): () => void {
  const { storage, threadId, leaseId, controller, logger } = options;
  let polls = 0;
  const timer = setInterval(() => {
    polls += 1;
    if (polls % RENEW_EVERY_POLLS === 0) {
      storage
        .renewLease(threadId, leaseId, LEASE_TTL_MS)
        .catch((error: unknown) => logger.error("could not renew a run's lease", error));
    }
    storage.cancelRequested(threadId, leaseId).then(
      (requested) => requested && controller.abort(new Error("cancelled by the user")),
      (error: unknown) => logger.error("could not check for a cancel request", error),
    );
  }, CANCEL_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Waits for the promises to settle, or for `ms`, whichever comes first. */
export async function settleWithin(promises: Array<Promise<unknown>>, ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
