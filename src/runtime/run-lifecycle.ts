import type { Storage } from "../storage/types.js";
import type { RuntimeLogger } from "./logger.js";

/** How often a running run checks for a cancel asked through another process. */
const CANCEL_POLL_MS = 250;

/** On close, how long cancelled runs get to write their final answer. */
export const SHUTDOWN_CANCEL_MS = 5_000;

/**
 * Lets a cancel asked through another process reach this run: polls the run's lease and
 * aborts `controller` when a cancel was requested. Returns the function that stops polling.
 */
export function watchCancelRequests(options: { storage: Storage; threadId: string; leaseId: string; controller: AbortController; logger: RuntimeLogger }): () => void {
  const { storage, threadId, leaseId, controller, logger } = options;
  const timer = setInterval(() => {
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
