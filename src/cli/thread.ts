import { NotPausedError, ThreadBusyError } from "../contracts/errors.js";
import type { ThreadView } from "../service/runtime/runtime.js";
import type { DecisionFlags } from "./args.js";
import { decisionsFromFlags } from "./pause/decisions.js";
import { describePause } from "./pause/pause.js";
import { EventRenderer, seedFromMessages } from "./output/render.js";
import { consumeRun, settlePauses, type CliContext, type RunOutcome } from "./session.js";
import { postQuestion } from "./post-question.js";

/** A thread as the CLI found it, with a renderer that continues its tags and steps. */
export interface OpenedThread {
  view: ThreadView;
  renderer: EventRenderer;
}

/** Loads a thread of the user (throws `ThreadNotFoundError` for an unknown one). */
export async function openThread(ctx: CliContext, threadId: string): Promise<OpenedThread> {
  const view = await ctx.runtime.getThread(threadId, ctx.user);
  return { view, renderer: new EventRenderer(ctx.style, seedFromMessages(view.messages)) };
}

/** Runs one question on the thread (by `--multitask`, or as the user chooses when it is busy) and follows it through its pauses. */
export async function askQuestion(
  ctx: CliContext,
  threadId: string,
  question: string,
  renderer: EventRenderer,
): Promise<RunOutcome> {
  const posted = await postQuestion(ctx, threadId, question);
  if ("outcome" in posted) return posted.outcome;
  renderer.newRun();
  return settlePauses(ctx, threadId, await consumeRun(ctx, threadId, posted.events, renderer), renderer);
}

/** Answers the thread's pause with the decision flags, then follows the resumed run. */
export async function answerWithFlags(
  ctx: CliContext,
  opened: OpenedThread,
  flags: DecisionFlags,
): Promise<RunOutcome> {
  const { view, renderer } = opened;
  if (view.status === "running") throw new ThreadBusyError(view.threadId);
  if (!view.interrupt) throw new NotPausedError(view.threadId);
  const resume = decisionsFromFlags(view.interrupt, flags);
  const events = await ctx.runtime.resumeRun({
    threadId: view.threadId,
    resume,
    user: ctx.user,
    options: ctx.runOptions,
  });
  return settlePauses(ctx, view.threadId, await consumeRun(ctx, view.threadId, events, renderer), renderer);
}

/**
 * Brings a thread to where it can take a question: shows (and on a TTY answers) its pause,
 * or recovers a run whose process died. Undefined when the thread was already idle.
 */
export async function settleThread(ctx: CliContext, opened: OpenedThread): Promise<RunOutcome | undefined> {
  const { view, renderer } = opened;
  if (view.status === "running") throw new ThreadBusyError(view.threadId);
  if (view.interrupt) {
    await showPendingPause(ctx, opened);
    return settlePauses(
      ctx,
      view.threadId,
      { stopReason: "interrupted", pause: view.interrupt, cancelledByUser: false },
      renderer,
    );
  }
  if (view.unfinished) {
    if (!ctx.json)
      ctx.out(ctx.style.yellow(`Thread ${view.threadId} has an unfinished run (its process stopped); recovering it…`));
    const events = await ctx.runtime.recoverRun(view.threadId, ctx.user);
    return settlePauses(ctx, view.threadId, await consumeRun(ctx, view.threadId, events, renderer), renderer);
  }
  return undefined;
}

/** Prints a pause found on a thread (no run streamed it in this process): as text, or its recorded event in JSON mode. */
async function showPendingPause(ctx: CliContext, opened: OpenedThread): Promise<void> {
  const { view, renderer } = opened;
  if (!ctx.json) {
    for (const line of describePause(view.interrupt!, { style: ctx.style, tagOf: renderer.tagOf })) ctx.out(line);
    return;
  }
  const recorded = await ctx.runtime.eventsAfter(view.threadId, ctx.user, 0);
  const latest = recorded.filter((event) => event.type === "loop_interrupt").at(-1);
  if (latest) ctx.out(JSON.stringify(latest));
}
