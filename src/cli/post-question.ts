import { OpsPilotError, ThreadBusyError, ThreadPausedError } from "../contracts/errors.js";
import type { StreamEvent } from "../contracts/events.js";
import type { PostOutcome, PostMessageRequest } from "../service/runtime/runtime.js";
import { promptBusyChoice } from "./pause/multitask-prompt.js";
import { threadCommand } from "./pause/pause.js";
import type { CliContext, RunOutcome } from "./session.js";

/** A question sent: its run's events, or how the command ends without streaming one here. */
export type PostedQuestion = { events: AsyncIterable<StreamEvent> } | { outcome: RunOutcome };

/**
 * Sends a question by `--multitask`. Without the flag, a thread that is running or paused
 * refuses it as before, and on a terminal (or in a chat) the user chooses: wait in the queue,
 * interrupt, or cancel (the refusal stands). A queued question is waited for here, and runs
 * here when its turn comes; Ctrl-C leaves it queued.
 */
export async function postQuestion(ctx: CliContext, threadId: string, question: string): Promise<PostedQuestion> {
  const request: PostMessageRequest = {
    threadId,
    message: question,
    user: ctx.user,
    ...(ctx.runOptions ? { options: ctx.runOptions } : {}),
  };
  let posted: PostOutcome;
  try {
    posted = await ctx.runtime.postMessage({ ...request, multitaskStrategy: ctx.multitask ?? "reject" });
  } catch (error) {
    const refusal = error instanceof ThreadBusyError || error instanceof ThreadPausedError ? error : undefined;
    if (!refusal || ctx.multitask !== undefined) throw error;
    if (!ctx.interactive) throw withFlagHint(refusal);
    const choice = await askChoice(ctx, refusal);
    if (!choice) throw refusal;
    posted = await ctx.runtime.postMessage({ ...request, multitaskStrategy: choice });
  }
  if (posted.kind === "started") return { events: posted.events };
  return waitInQueue(ctx, threadId, posted);
}

async function askChoice(ctx: CliContext, refusal: OpsPilotError) {
  const prompter = ctx.prompter();
  const release = ctx.sigint.push(() => prompter.cancel());
  try {
    return await promptBusyChoice(refusal, { prompter, write: (line) => ctx.err(line), style: ctx.style });
  } finally {
    release();
  }
}

async function waitInQueue(
  ctx: CliContext,
  threadId: string,
  queued: { messageId: string; position: number },
): Promise<PostedQuestion> {
  const say = (line: string) => (ctx.json ? ctx.err(line) : ctx.out(line));
  const follow = `follow the thread with: ${threadCommand(threadId, ctx.carried)}`;
  const elsewhere = () => {
    say(ctx.style.dim(`Your message started in another process; ${follow}`));
    return { outcome: { stopReason: "final_answer", cancelledByUser: false } } as const;
  };
  if (queued.position === 0) return elsewhere();
  say(
    ctx.style.dim(
      `Queued (position ${queued.position}): it runs when the thread is free. Waiting… (Ctrl-C leaves it queued)`,
    ),
  );
  const controller = new AbortController();
  const release = ctx.sigint.push(() => controller.abort());
  let events: AsyncIterable<StreamEvent> | undefined;
  try {
    events = await ctx.runtime.awaitQueued({
      threadId,
      messageId: queued.messageId,
      user: ctx.user,
      signal: controller.signal,
    });
  } finally {
    release();
  }
  if (events) return { events };
  if (!controller.signal.aborted) return elsewhere();
  say(
    ctx.style.yellow(
      `Stopped waiting; message ${queued.messageId} stays queued and runs when the thread is free (an opspilot server delivers it).`,
    ),
  );
  return { outcome: { stopReason: "final_answer", cancelledByUser: true } };
}

/** The refusal, with the flags that would have sent the question anyway. */
function withFlagHint(refusal: OpsPilotError): OpsPilotError {
  return new OpsPilotError(
    refusal.code,
    `${refusal.message} Or add --multitask enqueue to run it when the thread is free, or --multitask interrupt to stop the run (or close the pause) and run it now.`,
  );
}
