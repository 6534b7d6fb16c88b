import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ObservationMeta } from "../../contracts/observation.js";
import { ERROR_CLASSES } from "../../contracts/error-codes.js";
import { argsHash } from "../../contracts/formats/canonical.js";
import type { CallRecordOutcome, Recorder } from "../../storage/types.js";
import { summarizeArgs } from "../../execution/args-summary.js";
import { proposedCalls } from "../../contracts/calls.js";
import type { Batch } from "../state.js";

/**
 * Gives a call record to each call a stop closed without running it (the "not executed"
 * results `stopWithAnswer` returns: `finish_run`, a cancel during a pause, recovery from an
 * error), so every call id the model proposed has a record. A record the call already had
 * (a pause's `interrupt`) is replaced by how it ended.
 */
export async function recordClosedCalls(
  recorder: Recorder,
  options: {
    runId: string;
    threadId: string;
    /** The thread's messages before the stop, where the closed calls were proposed. */
    history: readonly BaseMessage[];
    /** The messages the stop appended; only its ToolMessages are recorded. */
    closing: readonly BaseMessage[];
    /** The batch the calls belonged to, whose frozen args hashes win over the proposed args'. */
    batch: Batch | null;
  },
): Promise<void> {
  const proposed = new Map(options.history.flatMap((message) => proposedCalls(message)).map((call) => [call.id, call]));
  const records = options.closing.filter(ToolMessage.isInstance).map((message) => {
    const callId = message.tool_call_id;
    const planned = options.batch?.calls.find((call) => call.callId === callId);
    const args = planned?.args ?? proposed.get(callId)?.args ?? {};
    const meta = message.artifact as Partial<ObservationMeta> | undefined;
    return {
      runId: options.runId,
      threadId: options.threadId,
      callId,
      tool: planned?.tool ?? message.name ?? proposed.get(callId)?.name ?? "",
      argsDigest: planned?.argsHash ?? argsHash(args),
      argsSummary: summarizeArgs(args),
      outcome: closedOutcome(meta?.errorCode),
      ...(meta?.errorCode ? { errorCode: meta.errorCode } : {}),
      durationMs: meta?.durationMs ?? 0,
    };
  });
  await recorder.recordToolCalls(records);
}

/** A closed call never ran: cancelled or rejected when its error code says so, otherwise skipped (the code says why). */
function closedOutcome(errorCode: ObservationMeta["errorCode"]): CallRecordOutcome {
  const record = errorCode === undefined ? "skipped" : ERROR_CLASSES[errorCode].record;
  return record === "error" ? "skipped" : record;
}
