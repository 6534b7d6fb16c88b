import { NothingToRecoverError, OpsPilotError, ThreadBusyError } from "../../contracts/errors.js";
import type { StreamEvent } from "../../contracts/events.js";
import type { HandedOverRun, HandoffStore } from "../../storage/types.js";
import type { Logger } from "../observability/logger.js";
import { followedRuns } from "../events/followed-runs.js";
import type { Runtime } from "../runtime/runtime.js";
import type { JobDefinition } from "./job.js";

/** How often the `takeover` job looks for runs handed over at a shutdown. */
export const TAKEOVER_MS = 5_000;

/** Most hand-overs one pass takes over; the rest wait for the next pass. */
const PASS_LIMIT = 100;

/** What the `takeover` job recovers threads with. */
export interface TakeoverJobOptions {
  runtime: Pick<Runtime, "recoverRun">;
  handoffs: HandoffStore;
  logger: Logger;
  everyMs?: number;
}

/** The `takeover` job, and when the runs it took over have ended. */
export interface TakeoverJob extends JobDefinition {
  /** Resolves once every run this job took over has ended. */
  idle(): Promise<void>;
}

/**
 * The `takeover` job: at start and every `everyMs`, recovers each thread whose run a shutdown
 * handed over, as the user it ran as, through the runtime's recover path (which starts from the
 * saved step, so nothing runs twice), and reads the run's events to its end in the background.
 * A hand-over is forgotten once its recovery started, or when the thread has nothing left to
 * recover; a thread another run holds (the process handing it over, someone recovering it) is
 * tried again on the next pass.
 */
export function takeoverJob(options: TakeoverJobOptions): TakeoverJob {
  const { runtime, handoffs, logger } = options;
  const runs = followedRuns(logger);

  async function takeOver(handoff: HandedOverRun): Promise<void> {
    const { threadId } = handoff;
    let events: AsyncIterable<StreamEvent>;
    try {
      events = await runtime.recoverRun(threadId, handoff.user);
    } catch (error) {
      if (error instanceof ThreadBusyError) return;
      if (!(error instanceof OpsPilotError)) throw error;
      // Finished by someone else, or refused for good (the thread is gone): the thread keeps its state for a person.
      if (!(error instanceof NothingToRecoverError))
        logger.warn?.(`thread ${threadId} was handed over but is not taken over: ${error.message}`);
      await handoffs.forgetHandoff(threadId, handoff.handedAt);
      return;
    }
    runs.follow(events, `the run taken over on thread ${threadId} failed`);
    // Only this hand-over: the recovered run may be handed over again (a later record) before this line.
    await handoffs.forgetHandoff(threadId, handoff.handedAt);
  }

  return {
    name: "takeover",
    schedule: { kind: "every", ms: options.everyMs ?? TAKEOVER_MS, atStart: true },
    async run(signal) {
      const failures: unknown[] = [];
      for (const handoff of await handoffs.handoffs(PASS_LIMIT)) {
        if (signal.aborted) break;
        await takeOver(handoff).catch((error: unknown) => failures.push(error));
      }
      if (failures.length > 0) throw new AggregateError(failures, `${failures.length} handed-over runs not taken over`);
    },
    idle: () => runs.idle(),
  };
}
