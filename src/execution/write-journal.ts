import type { PlannedCall } from "../contracts/calls.js";
import type { ToolDefinition, ToolContext } from "../tools/types.js";
import type { WriteJournal } from "../storage/types.js";
import { argsHash } from "../contracts/formats/canonical.js";
import type { ToolMessage } from "@langchain/core/messages";
import type { ProposedCall } from "../contracts/calls.js";
import { runCall, type CallOutcome, type RunCallOptions } from "./call-tool.js";
import { toolMessage } from "./tool-message.js";

/**
 * Runs a write call at most once (design §2.5, §2.6): checks the frozen approval, then
 * journals `started` before the tool runs and `finished` with its observation after. A
 * finished entry is reused; a started one means a previous attempt died mid-write, so the
 * tool is not run again and the outcome is reported as unknown. An idempotent write's retry
 * after a timeout happens inside the one journal entry, with the same idempotency key.
 * `admit` is asked only once the journal says the write has not started, so a recorded
 * result is always reused and never replaced by a refusal.
 */
export async function runWrite(options: {
  call: PlannedCall;
  tool: ToolDefinition;
  context: Omit<ToolContext, "signal">;
  signal: AbortSignal;
  journal: WriteJournal;
  admit?: RunCallOptions["admit"];
}): Promise<CallOutcome> {
  const { call, tool, context, signal, journal } = options;
  const frozenHash = argsHash(call.args);
  if (tool.risk === "high" && call.approvedHash !== frozenHash) {
    return observation(false, "internal", `${tool.name} was not run: its args do not match the approved ones.`);
  }
  const existing = await journal.getEntry(context.threadId, call.callId);
  if (existing?.state === "finished" && existing.observation) {
    return { kind: "observation", observation: existing.observation, raw: undefined, durationMs: 0, attempts: 0 };
  }
  if (existing?.state === "started") return unknownOutcome(tool.name);
  if (signal.aborted) return observation(false, "cancelled", `${tool.name} was cancelled before it ran.`);
  const refused = await options.admit?.();
  if (refused) return { kind: "observation", observation: refused, raw: undefined, durationMs: 0, attempts: 0 };
  const claimed = await journal.startEntry({
    threadId: context.threadId,
    callId: call.callId,
    tool: tool.name,
    argsHash: frozenHash,
  });
  if (!claimed) return unknownOutcome(tool.name);
  const outcome = await runCall({ tool, args: call.args, context, signal });
  if (outcome.kind === "needs_user") {
    // A tool asks before it applies anything, so the call may run once it has its answer.
    await journal.clearEntry(context.threadId, call.callId);
    return outcome;
  }
  // A write cut off by a cancel or by its time limit was still running: it may or may not have taken effect.
  const cutOff = !outcome.observation.ok && (signal.aborted || outcome.observation.errorCode === "timeout");
  const final = cutOff ? unknownOutcome(tool.name) : outcome;
  if (final.kind === "observation") await journal.finishEntry(context.threadId, call.callId, final.observation);
  return final;
}

function unknownOutcome(tool: string): CallOutcome {
  return {
    kind: "observation",
    observation: unknownOutcomeObservation(tool),
    raw: undefined,
    durationMs: 0,
    attempts: 0,
  };
}

function unknownOutcomeObservation(tool: string) {
  return {
    ok: false as const,
    errorCode: "outcome_unknown" as const,
    message: `${tool} was interrupted while it ran, so it is not known whether it took effect. It was not run again: check the real state before retrying.`,
  };
}

function observation(ok: false, errorCode: "internal" | "cancelled" | "outcome_unknown", message: string): CallOutcome {
  return { kind: "observation", observation: { ok, errorCode, message }, raw: undefined, durationMs: 0, attempts: 0 };
}

/**
 * The results the journal holds for calls that have no ToolMessage: a finished write gets its
 * recorded observation and a started one `outcome_unknown`, so a run that fails after a write
 * never tells the model or the user that the write did not run. Calls without an entry are left out.
 */
export async function journaledResults(options: {
  journal: WriteJournal;
  threadId: string;
  calls: readonly ProposedCall[];
  maxChars: number;
}): Promise<ToolMessage[]> {
  const results: ToolMessage[] = [];
  for (const call of options.calls) {
    const entry = await options.journal.getEntry(options.threadId, call.id);
    if (!entry) continue;
    const outcome =
      entry.state === "finished" && entry.observation ? entry.observation : unknownOutcomeObservation(call.name);
    results.push(
      toolMessage({
        callId: call.id,
        tool: call.name,
        observation: outcome,
        durationMs: 0,
        attempts: 0,
        maxChars: options.maxChars,
      }),
    );
  }
  return results;
}
