import { assertMessageFits, ThreadPausedError } from "../contracts/errors.js";
import { hasDecisionFlags, type CliArgs } from "./args.js";
import { CliUsageError } from "./cli-error.js";
import { EventRenderer } from "./output/render.js";
import { callExitCode } from "./tools/call.js";
import { threadCommand } from "./pause/pause.js";
import { exitCodeFor, type CliContext } from "./session.js";
import { answerWithFlags, askQuestion, openThread, settleThread } from "./thread.js";

/**
 * `ask`: one question on a new thread; or, with `--thread`, answer its pause (flags or in
 * place), recover an unfinished run, or continue the conversation. Returns the exit code.
 */
export async function runAsk(ctx: CliContext, args: CliArgs): Promise<number> {
  // Without a model the answer is the call's observation, and so is the exit code.
  const exitCode = args.noModel ? callExitCode : exitCodeFor;
  if (args.thread === undefined) {
    if (hasDecisionFlags(args.decisions))
      throw new CliUsageError("--approve, --param, --edit, --reject and --resume answer a pause: add --thread <id>.");
    if (args.question === undefined)
      throw new CliUsageError('Missing question: npm run ask -- "your question" (run with --help for more).');
    // Refused before a thread is made for it, in the words the API uses.
    assertMessageFits(args.question);
    const threadId = await ctx.runtime.createThread(ctx.user);
    return exitCode(await askQuestion(ctx, threadId, args.question, new EventRenderer(ctx.style)));
  }
  const opened = await openThread(ctx, args.thread);
  if (hasDecisionFlags(args.decisions)) {
    if (args.question !== undefined)
      throw new CliUsageError("Give either a question or an answer to the pause, not both.");
    return exitCode(await answerWithFlags(ctx, opened, args.decisions));
  }
  // A question to a running thread, or one sent past a pause (--multitask), meets the thread as it is.
  if (args.question !== undefined && (opened.view.status === "running" || sendsPast(args)))
    return exitCode(await askQuestion(ctx, args.thread, args.question, opened.renderer));
  // Without a terminal a paused thread cannot take a question: say so before printing anything.
  if (args.question !== undefined && opened.view.interrupt && !ctx.interactive)
    throw new ThreadPausedError(args.thread);
  const settled = await settleThread(ctx, opened);
  if (settled && (settled.pause || settled.cancelledByUser || args.question === undefined)) return exitCode(settled);
  if (args.question === undefined) {
    throw new CliUsageError(
      `Thread ${args.thread} is not waiting for anything; add a question to continue it: ${threadCommand(args.thread, withModel(ctx.carried))} "..."`,
    );
  }
  return exitCode(await askQuestion(ctx, args.thread, args.question, opened.renderer));
}

/** Whether the question goes past what the thread is doing (queued or interrupting) instead of settling it first. */
function sendsPast(args: CliArgs): boolean {
  return args.multitask === "enqueue" || args.multitask === "interrupt";
}

/** The carried flags of a command that asks the model again. */
function withModel(flags: readonly string[]): string[] {
  return flags.filter((flag) => flag !== "--no-model");
}
