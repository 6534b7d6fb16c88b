import { assertMessageFits } from "../../contracts/errors.js";
import { ERROR_CLASSES } from "../../contracts/error-codes.js";
import { planCall } from "../../graph/calls/validation.js";
import { closeMatches, editDistance } from "../../tools/edit-distance.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { hasDecisionFlags, type CliArgs } from "../args.js";
import { CliUsageError } from "../cli-error.js";
import { decisionsFromFlags } from "../pause/decisions.js";
import { callMessage, type DirectCall } from "./direct-call-model.js";
import { resumeInstructions } from "../pause/pause.js";
import { EventRenderer } from "../output/render.js";
import { consumeRun, exitCodeFor, settlePauses, type CliContext, type RunOutcome } from "../session.js";

/**
 * `ask --call <tool> '<json>'`: one tool call through the real loop with no model. The call is
 * checked first as the loop checks a model's (an unknown tool or bad args is one line, exit 2,
 * and no thread is made), then runs on a new thread: roles, approvals, rate limits, masking,
 * the journal and the records apply as to any call. A pause waits as always, or is answered
 * at once by `--approve` / `--param`.
 */
export async function runCall(ctx: CliContext, args: CliArgs, registry: ToolRegistry): Promise<number> {
  const call = args.call!;
  checkCall(call, ctx, registry);
  const message = callMessage(call);
  assertMessageFits(message);
  const threadId = await ctx.runtime.createThread(ctx.user);
  const renderer = new EventRenderer(ctx.style);
  const started = await ctx.runtime.startRun({ threadId, message, user: ctx.user, options: ctx.runOptions });
  let outcome = await consumeRun(ctx, threadId, started, renderer);
  if (outcome.pause && !outcome.cancelledByUser && hasDecisionFlags(args.decisions)) {
    const pause = outcome.pause;
    let resume;
    try {
      resume = decisionsFromFlags(pause, args.decisions);
    } catch (error) {
      // The flags do not fit the pause (a field they do not fill): it waits, and says how to answer.
      if (!ctx.json)
        for (const line of ["", ...resumeInstructions(threadId, pause, ctx.style, ctx.carried)]) ctx.out(line);
      throw error;
    }
    const resumed = await ctx.runtime.resumeRun({ threadId, resume, user: ctx.user, options: ctx.runOptions });
    outcome = await consumeRun(ctx, threadId, resumed, renderer);
  }
  return callExitCode(await settlePauses(ctx, threadId, outcome, renderer));
}

/**
 * Exit code of a run without a model (`--call`, `--no-model`), from its call's observation:
 * 0 when it ran (or is waiting, or was rejected by the user), 2 when it was refused before
 * running, 1 when it ran and failed; 130 after Ctrl-C.
 */
export function callExitCode(outcome: RunOutcome): number {
  const code = exitCodeFor(outcome);
  if (code !== 0 || outcome.pause || !outcome.lastResult || outcome.lastResult.ok) return code;
  const errorCode = outcome.lastResult.errorCode;
  if (errorCode === "rejected_by_user") return 0;
  // Refused before it ran: the request was wrong, nothing changed.
  return errorCode !== undefined && ERROR_CLASSES[errorCode].refused ? 2 : 1;
}

/** Refuses, in the loop's own words, what no run should start for: an unknown tool, args its schema refuses. */
function checkCall(call: DirectCall, ctx: CliContext, registry: ToolRegistry): void {
  if (!registry.get(call.tool)) throw new CliUsageError(unknownToolLine(call.tool, registry.names()));
  const planned = planCall({ id: "cli", name: call.tool, args: call.args }, { registry, user: ctx.user });
  if (planned.status === "failed" && planned.failure.errorCode === "invalid_args")
    throw new CliUsageError(planned.failure.message);
}

/** `There is no tool named "x"; did you mean y?`, or where to see the tools. */
function unknownToolLine(name: string, tools: readonly string[]): string {
  const close = closestTools(name, tools);
  const hint =
    close.length > 0
      ? `did you mean ${close.join(" or ")}?`
      : `${tools.length} tools are listed by npm run ask -- --tools.`;
  return `There is no tool named "${name}"; ${hint}`;
}

/**
 * Up to three tools close to `name`: within one typo per four characters of it (or of their
 * name after `<server>__`), else those whose name holds each of its words (`get_metrics`).
 */
function closestTools(name: string, tools: readonly string[]): string[] {
  const bare = (tool: string) => (tool.includes("__") ? tool.slice(tool.indexOf("__") + 2) : tool);
  const typos = closeMatches(name, tools, (tool) => Math.min(editDistance(name, tool), editDistance(name, bare(tool))));
  const words = name
    .toLowerCase()
    .split(/[_\W]+/)
    .filter((word) => word.length > 2);
  const holding =
    words.length > 0 ? tools.filter((tool) => words.every((word) => tool.toLowerCase().includes(word))) : [];
  return (typos.length > 0 ? typos : holding).slice(0, 3);
}
