import type { RunnableConfig } from "@langchain/core/runnables";
import type { RunOptions } from "./config.js";
import type { RunUser } from "../contracts/user.js";
import { ThreadIdRequiredError } from "../contracts/errors.js";

/**
 * The thread id of a graph invocation. Required: it keys the write journal and every
 * idempotency key, so a silent fallback would let two threads share one write's effect.
 */
export function threadIdOf(config: RunnableConfig): string {
  const threadId = config.configurable?.thread_id;
  if (typeof threadId === "string" && threadId.length > 0) return threadId;
  throw new ThreadIdRequiredError();
}

/** Where a run's cancel signal comes from: the runtime's registry, or nothing outside it. */
export interface CancelSignals {
  /** The signal of the thread's current run; never aborted when the thread has none here. */
  signalFor(threadId: string): AbortSignal;
}

const neverAborted = new AbortController().signal;

/** Cancel signals for a graph driven without the runtime (Studio, the LangGraph server): runs end on their own. */
export const noCancelSignals: CancelSignals = { signalFor: () => neverAborted };

/** The user a run acts for. */
export function userOf(options: Pick<RunOptions, "userId" | "role">): RunUser {
  return { id: options.userId, role: options.role };
}
