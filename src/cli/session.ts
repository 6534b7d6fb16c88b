import type { RunOptionsRequest } from "../graph/limits.js";
import { ResumeRejectedError } from "../contracts/errors.js";
import type { Runtime } from "../service/runtime/runtime.js";
import type { StreamEvent } from "../contracts/events.js";
import type { ErrorCode } from "../contracts/observation.js";
import { PauseValueSchema, type PauseValue } from "../contracts/pause/pause.js";
import type { StopReason } from "../contracts/stop-reasons.js";
import type { RunUser } from "../contracts/user.js";
import type { MultitaskStrategy } from "../service/runtime/multitask-strategy.js";
import { resumeInstructions } from "./pause/pause.js";
import { promptResume } from "./pause/prompt.js";
import { leavingOnExit, type Prompter } from "./prompter.js";
import type { EventRenderer } from "./output/render.js";
import type { SigintRouter } from "./sigint.js";
import type { Style } from "./output/style.js";

/** Everything a command needs: the runtime, who asks, where to write, how to ask. */
export interface CliContext {
  runtime: Runtime;
  user: RunUser;
  /** Per-run options from the flags. */
  runOptions?: RunOptionsRequest;
  /** What a question does when its thread is running or paused (`--multitask`); asked in place when absent. */
  multitask?: MultitaskStrategy;
  /** Flags every printed command repeats (`--user`, `--role`, limits, `--no-model`), so it answers as this run does. */
  carried: readonly string[];
  /** Writes one line to stdout. */
  out(line: string): void;
  /** Writes text to stdout as it is (answer fragments). */
  write(text: string): void;
  /** Answers are shown as the model writes them (stdout is a terminal and not --json); otherwise only complete messages. */
  streamAnswers: boolean;
  /** Writes one line to stderr. */
  err(line: string): void;
  /** Raw events as JSON lines; nothing else on stdout. */
  json: boolean;
  /** Pauses are answered in place (stdin is a TTY, or a chat's piped lines; no --no-input, no --json). */
  interactive: boolean;
  style: Style;
  /** The prompter, created on first use. */
  prompter(): Prompter;
  sigint: SigintRouter;
  /** Quits at once (a second Ctrl-C while a run is being cancelled). */
  forceExit(): void;
}

/** How a run (with any in-place answers) ended. */
export interface RunOutcome {
  stopReason: StopReason;
  /** The pause still waiting, when the run stopped at one. */
  pause?: PauseValue;
  /** The user pressed Ctrl-C during the run. */
  cancelledByUser: boolean;
  /** The last tool result of the run, when it had one. */
  lastResult?: { ok: boolean; errorCode?: ErrorCode };
}

/** Prints a run's events as they arrive; Ctrl-C cancels the run through the runtime. */
export async function consumeRun(
  ctx: CliContext,
  threadId: string,
  events: AsyncIterable<StreamEvent>,
  renderer: EventRenderer,
): Promise<RunOutcome> {
  const outcome: RunOutcome = { stopReason: "error", cancelledByUser: false };
  const release = ctx.sigint.push(() => {
    if (outcome.cancelledByUser) return ctx.forceExit();
    outcome.cancelledByUser = true;
    ctx.err(ctx.style.yellow("Cancelling the run… (Ctrl-C again to quit at once)"));
    ctx.runtime.cancelRun(threadId, ctx.user).catch(() => undefined);
  });
  try {
    for await (const event of events) {
      if (event.type === "assistant_delta") {
        if (ctx.streamAnswers) ctx.write(renderer.renderDelta(event));
        continue;
      }
      if (ctx.json) ctx.out(JSON.stringify(event));
      else for (const line of renderer.render(event)) ctx.out(line);
      if (event.type === "loop_interrupt") outcome.pause = PauseValueSchema.parse(event);
      if (event.type === "tool_result")
        outcome.lastResult = { ok: event.ok, ...(event.errorCode ? { errorCode: event.errorCode } : {}) };
      if (event.type === "run_finished") outcome.stopReason = event.stopReason;
    }
  } finally {
    release();
  }
  if (outcome.stopReason !== "interrupted") delete outcome.pause;
  return outcome;
}

/**
 * Follows a run through its pauses: on a TTY asks in place and resumes (asking again when
 * the runtime refuses the answer); otherwise prints how to resume and returns, since a
 * pause is a normal state.
 */
export async function settlePauses(
  ctx: CliContext,
  threadId: string,
  first: RunOutcome,
  renderer: EventRenderer,
): Promise<RunOutcome> {
  let outcome = first;
  while (outcome.pause && !outcome.cancelledByUser) {
    const pause: PauseValue = outcome.pause;
    const resume = ctx.interactive ? await askInPlace(ctx, pause, renderer) : undefined;
    if (!resume) {
      if (!ctx.json)
        for (const line of ["", ...resumeInstructions(threadId, pause, ctx.style, ctx.carried)]) ctx.out(line);
      return outcome;
    }
    let events: AsyncIterable<StreamEvent>;
    try {
      events = await ctx.runtime.resumeRun({ threadId, resume, user: ctx.user, options: ctx.runOptions });
    } catch (error) {
      if (!(error instanceof ResumeRejectedError)) throw error;
      ctx.err(ctx.style.red(`✗ ${error.message}`));
      continue;
    }
    outcome = await consumeRun(ctx, threadId, events, renderer);
  }
  return outcome;
}

async function askInPlace(ctx: CliContext, pause: PauseValue, renderer: EventRenderer) {
  const prompter = ctx.prompter();
  const release = ctx.sigint.push(() => prompter.cancel());
  try {
    return await promptResume(pause, {
      prompter: leavingOnExit(prompter),
      write: (line) => ctx.out(line),
      style: ctx.style,
      tagOf: renderer.tagOf,
    });
  } finally {
    release();
  }
}

/** Exit code of a finished command: 0 for an answer or a pause, 1 when the run failed, 130 after Ctrl-C. */
export function exitCodeFor(outcome: RunOutcome): number {
  if (outcome.cancelledByUser) return 130;
  return outcome.stopReason === "error" ? 1 : 0;
}
