import type { StreamEvent } from "../../contracts/events.js";
import type { Logger } from "../observability/logger.js";

/** Runs nobody waits for, read to their end in the background (a sweep's, a takeover's, an incident's). */
export interface FollowedRuns {
  /** Reads the run's events to the end; a failure is logged as `failure`; `then` runs after, either way. */
  follow(events: AsyncIterable<StreamEvent>, failure: string, then?: () => void): void;
  /** How many are still being read. */
  readonly size: number;
  /** Resolves once every followed run has ended, those started meanwhile included. */
  idle(): Promise<void>;
}

/** Keeps the runs a background worker started, so it can wait for them. */
export function followedRuns(logger: Pick<Logger, "error">): FollowedRuns {
  const runs = new Set<Promise<void>>();
  return {
    follow(events, failure, then) {
      const run = (async () => {
        for await (const _event of events);
      })()
        .catch((error: unknown) => logger.error(failure, error))
        .finally(() => {
          runs.delete(run);
          then?.();
        });
      runs.add(run);
    },
    get size() {
      return runs.size;
    },
    async idle() {
      while (runs.size > 0) await Promise.all([...runs]);
    },
  };
}
