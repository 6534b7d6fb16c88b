import { assertMessageFits, ThreadPausedError } from "../contracts/errors.js";
import { hasDecisionFlags, type CliArgs } from "./args.js";
import { CliUsageError } from "./cli-error.js";
import { EventRenderer } from "./render.js";
import { exitCodeFor, type CliContext } from "./session.js";
import { answerWithFlags, askQuestion, openThread, settleThread } from "./thread.js";

/**
 * `ask`: one question on a new thread; or, with `--thread`, answer its pause (flags or in
 * place), recover an unfinished run, or continue the conversation. Returns the exit code.
 */
export async function runAsk(ctx: CliContext, args: CliArgs): Promise<number> {
  if (args.thread === undefined) {
    if (hasDecisionFlags(args.decisions))
      throw new CliUsageError("--approve, --param, --edit, --reject and --resume answer a pause: add --thread <id>.");
    if (args.question === undefined)
      throw new CliUsageError('Missing question: npm run ask -- "your question" (run with --help for more).');
    // Refused before a thread is made for it, in the words the API uses.
    assertMessageFits(args.question);
    const threadId = await ctx.runtime.createThread(ctx.user);
    return exitCodeFor(await askQuestion(ctx, threadId, args.question, new EventRenderer(ctx.style)));
  }
  const opened = await openThread(ctx, args.thread);
  if (hasDecisionFlags(args.decisions)) {
    if (args.question !== undefined)
      throw new CliUsageError("Give either a question or an answer to the pause, not both.");
    return exitCodeFor(await answerWithFlags(ctx, opened, args.decisions));
  }
  // Without a terminal a paused thread cannot take a question: say so before printing anything.
  if (args.question !== undefined && opened.view.interrupt && !ctx.interactive)
    throw new ThreadPausedError(args.thread);
  const settled = await settleThread(ctx, opened);
  if (settled && (settled.pause || settled.cancelledByUser || args.question === undefined)) return exitCodeFor(settled);
  if (args.question === undefined) {
    throw new CliUsageError(
      `Thread ${args.thread} is not waiting for anything; add a question to continue it: npm run ask -- --thread ${args.thread} "..."`,
    );
  }
  return exitCodeFor(await askQuestion(ctx, args.thread, args.question, opened.renderer));
}
