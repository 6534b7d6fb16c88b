import { OpsPilotError } from "../contracts/errors.js";
import { hasDecisionFlags, type CliArgs } from "./args.js";
import { CliUsageError, reportError } from "./cli-error.js";
import { EventRenderer } from "./render.js";
import { exitCodeFor, type CliContext, type RunOutcome } from "./session.js";
import { answerWithFlags, askQuestion, openThread, settleThread } from "./thread.js";

const EXIT_WORDS = new Set(["/exit", "/quit", "exit", "quit"]);

/**
 * `chat`: a conversation on one thread (new, or `--thread`), one question per line, until
 * /exit, end of input or Ctrl-C at the prompt. Pauses are answered in place on a TTY;
 * otherwise the chat prints how to resume and ends, since the thread now waits.
 */
export async function runChat(ctx: CliContext, args: CliArgs): Promise<number> {
  if (args.thread === undefined && hasDecisionFlags(args.decisions))
    throw new CliUsageError("--approve, --param, --edit, --reject and --resume answer a pause: add --thread <id>.");
  let threadId: string;
  let renderer: EventRenderer;
  if (args.thread !== undefined) {
    const opened = await openThread(ctx, args.thread);
    const settled = hasDecisionFlags(args.decisions)
      ? await answerWithFlags(ctx, opened, args.decisions)
      : await settleThread(ctx, opened);
    if (settled?.pause) return exitCodeFor(settled);
    ({ threadId } = opened.view);
    renderer = opened.renderer;
  } else {
    threadId = await ctx.runtime.createThread(ctx.user);
    renderer = new EventRenderer(ctx.style);
  }
  if (!ctx.json) ctx.out(ctx.style.dim(`opspilot chat · thread ${threadId} · /exit or Ctrl-D to leave`));
  let pending = args.question;
  for (;;) {
    const line = pending ?? (await readQuestion(ctx));
    pending = undefined;
    if (line === undefined) break;
    const question = line.trim();
    if (question.length === 0) continue;
    if (EXIT_WORDS.has(question)) break;
    const outcome = await askSafely(ctx, threadId, question, renderer);
    if (outcome?.pause) return exitCodeFor(outcome);
  }
  if (!ctx.json) ctx.out(ctx.style.dim(`thread: ${threadId}`));
  return 0;
}

async function readQuestion(ctx: CliContext): Promise<string | undefined> {
  const prompter = ctx.prompter();
  const release = ctx.sigint.push(() => prompter.cancel());
  try {
    return await prompter.ask(ctx.style.bold("you › "));
  } finally {
    release();
  }
}

/** One question; a refusal (busy, paused thread) is reported and the chat goes on. */
async function askSafely(
  ctx: CliContext,
  threadId: string,
  question: string,
  renderer: EventRenderer,
): Promise<RunOutcome | undefined> {
  try {
    return await askQuestion(ctx, threadId, question, renderer);
  } catch (error) {
    if (!(error instanceof OpsPilotError)) throw error;
    ctx.err(reportError(error).line);
    return undefined;
  }
}
