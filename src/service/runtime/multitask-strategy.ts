import { z } from "zod";

/**
 * What a new message does when its thread is running or waits for an answer (LangGraph's
 * `multitask_strategy`, without `rollback`): `reject` refuses it (409), `enqueue` stores it to
 * run once the thread is free, `interrupt` stops the run (or closes the pause) and runs it now.
 */
export const MultitaskStrategySchema = z
  .enum(["reject", "enqueue", "interrupt"], {
    error: 'must be "reject" (the default), "enqueue" or "interrupt"',
  })
  .describe("What a message does when its thread is busy or paused: reject, enqueue or interrupt");

/** One of the multitask strategies. */
export type MultitaskStrategy = z.infer<typeof MultitaskStrategySchema>;

/** The decision a superseded pause's calls are rejected with, recorded as the sender's. */
export const SUPERSEDED_MESSAGE = "superseded by a new message";

/** What an HTTP client may send instead, appended to a 409 met with `reject`; unfinished threads take only `enqueue`. */
export function strategyHint(code: string): string {
  if (code === "thread_unfinished")
    return ' Or send it with "multitaskStrategy": "enqueue" to run it once the run is recovered.';
  return (
    ' Or send it with "multitaskStrategy": "enqueue" to run it when the thread is free' +
    ' (after the run ends and any pause is answered), or "interrupt" to stop the run (or close the pause) and run it now.'
  );
}
