import { OpsPilotError } from "../../contracts/errors.js";
import { hasDecisionFlags, type CliArgs } from "../args.js";
import { CliUsageError, reportError } from "../cli-error.js";
import { EventRenderer } from "../output/render.js";
import { CHAT_HELP, parseChatCommand, pauseEndsChatLine, threadLines, unknownCommandLine } from "./commands.js";
import { exitCodeFor, type CliContext, type RunOutcome } from "../session.js";
import { answerWithFlags, askQuestion, openThread, settleThread } from "../thread.js";

/**
 * `chat`: a conversation on one thread (new, or `--thread`), one question per line, until
 * /exit, end of input or Ctrl-C at the prompt; /help, /thread and /new are commands of the
 * chat, never questions. Pauses are answered in place: on a TTY as typed, from a pipe by the
 * next lines; with --no-input or --json the chat prints how to resume and ends, saying that
 * the lines after the pause were not read.
 */
export async function runChat(ctx: CliContext, args: CliArgs): Promise<number> {
  if (args.thread === undefined && hasDecisionFlags(args.decisions))
    throw new CliUsageError("--approve, --param, --edit, --reject and --resume answer a pause: add --thread <id>.");
  let threadId: string;
  let renderer: EventRenderer;
  if (args.thread !== undefined) {
    const opened = await openThread(ctx, args.thread);
    // A running thread is left to its run: the first question meets it (and may wait or interrupt).
    const settled = hasDecisionFlags(args.decisions)
      ? await answerWithFlags(ctx, opened, args.decisions)
      : opened.view.status === "running"
        ? undefined
        : await settleThread(ctx, opened);
    if (settled?.pause) return endAtPause(ctx, opened.view.threadId, settled);
    ({ threadId } = opened.view);
    renderer = opened.renderer;
  } else {
    threadId = await ctx.runtime.createThread(ctx.user);
    renderer = new EventRenderer(ctx.style);
  }
  if (!ctx.json)
    ctx.out(ctx.style.dim(`opspilot chat · thread ${threadId} · /help for commands, /exit or Ctrl-D to leave`));
  // With --json stdout carries only events: what the commands print goes to stderr.
  const say = (line: string) => (ctx.json ? ctx.err(line) : ctx.out(line));
  let pending = args.question;
  for (;;) {
    const line = pending ?? (await readQuestion(ctx));
    pending = undefined;
    if (line === undefined) break;
    const question = line.trim();
    if (question.length === 0) continue;
    const command = parseChatCommand(question);
    if (command?.kind === "exit") break;
    if (command?.kind === "help") CHAT_HELP.forEach(say);
    else if (command?.kind === "thread") threadLines(threadId, ctx.carried).forEach(say);
    else if (command?.kind === "unknown") ctx.err(ctx.style.yellow(unknownCommandLine(command.word)));
    else if (command?.kind === "new") {
      const previous = threadId;
      threadId = await ctx.runtime.createThread(ctx.user);
      renderer = new EventRenderer(ctx.style);
      say(ctx.style.dim(`new thread ${threadId} (the previous one, ${previous}, is kept)`));
    }
    if (command) continue;
    const outcome = await askSafely(ctx, threadId, question, renderer);
    if (outcome?.pause) return endAtPause(ctx, threadId, outcome);
  }
  if (!ctx.json) ctx.out(ctx.style.dim(`thread: ${threadId}`));
  return 0;
}

/** The chat ends at a pause it could not answer: say so unless the user chose to leave the prompt. */
function endAtPause(ctx: CliContext, threadId: string, outcome: RunOutcome): number {
  if (!ctx.interactive && !outcome.cancelledByUser) {
    const line = pauseEndsChatLine(threadId, ctx.carried, ctx.json ? "--json" : "--no-input");
    (ctx.json ? ctx.err : ctx.out)(ctx.style.yellow(line));
  }
  return exitCodeFor(outcome);
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
