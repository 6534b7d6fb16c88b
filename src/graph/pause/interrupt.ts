import { loopWords } from "../../contracts/words/loop-words.js";
import { createHash } from "node:crypto";
import type { Batch } from "../state.js";
import type { WaitingCallPlan } from "../../contracts/calls.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { PauseValue, WaitingCall } from "../../contracts/pause/pause.js";
import type { Language } from "../../contracts/language.js";
import { egressReason } from "../calls/taint.js";
import { hitlRequestOf } from "../../contracts/pause/hitl.js";
import { approvalRule, approvalsLine, countedApprovals, pauseApprovals, type ApprovalRule } from "./approvals.js";
import { waitingCalls } from "./standing.js";

/**
 * The interrupt value of design §4 for the waiting calls; deterministic, since review_calls
 * re-runs on resume. Any high-risk waiting call makes it `confirm_risky`, even when it also
 * waits for fields: the form and the risk are one pause, answered by one approval of the final args.
 */
export function buildInterrupt(batch: Batch, language: Language, source?: PauseSource): PauseValue {
  const waiting = waitingCalls(batch);
  // A four-eyes call's approvals so far are part of the pause: each one given makes a new pause to answer.
  const approvers = (call: WaitingCallPlan) => {
    const counted = countedApprovals(call).map((approval) => approval.userId);
    return counted.length > 0 ? `:${counted.join("+")}` : "";
  };
  const interruptId =
    "int_" +
    createHash("sha256")
      .update(`${batch.step}:${waiting.map((c) => `${c.callId}:${c.argsHash}${approvers(c)}`).join(",")}`)
      .digest("hex")
      .slice(0, 16);
  const calls = waitingCallsOf(batch, source);
  const reasons = waiting.map((call, index) => {
    const reason = waitingReason(call, language);
    const approvals = calls[index]!.approvals;
    if (!approvals) return reason;
    return loopWords(language).pause.withApprovals(reason, approvalsLine(approvals, language));
  });
  const expiry = pauseExpiry(batch, source);
  return {
    interruptId,
    interruptType: waiting.some((call) => call.risk === "high") ? "confirm_risky" : "params_required",
    reason: reasons.join(loopWords(language).pause.reasonSeparator),
    calls,
    // The same pause in LangChain's human-in-the-loop shape, for the UIs that render it.
    ...hitlRequestOf(calls, (_call, index) => reasons[index]!),
    ...(expiry ? { expiresAt: new Date(expiry.expiresAt).toISOString() } : {}),
  };
}

/** What a pause is built from besides its batch: the tools' policies, when it began and who asked. */
export interface PauseSource {
  /** The tools the graph was built with (their policy says who must approve and how long an approval may wait). */
  registry: ToolRegistry;
  /** Epoch ms the pause began: the run's last active moment, which stays put while it waits. */
  since: number;
  /** The user whose message started the run, where it is known. */
  requestedBy?: string;
}

/**
 * When a pause's approvals expire (epoch ms) and after how long it waited then: the pause's own
 * clock, not the stored `PauseDeadline` (storage) that tells every process which thread to expire.
 */
export interface PauseExpiry {
  expiresAt: number;
  afterMs: number;
}

/**
 * When the batch's pause expires: at the earliest `approvalExpiresAfterMs` of its high-risk
 * waiting calls (a pause is one answer: it expires whole). A pause with no such call never
 * expires, so one that only asks for fields waits as long as it takes.
 */
export function pauseExpiry(batch: Batch, expiry: PauseSource | undefined): PauseExpiry | undefined {
  if (!expiry) return undefined;
  const lengths = waitingCalls(batch)
    .filter((call) => call.risk === "high")
    .flatMap((call) => {
      const ms = expiry.registry.get(call.tool)?.approvalExpiresAfterMs;
      return ms === undefined ? [] : [ms];
    });
  if (lengths.length === 0) return undefined;
  const afterMs = Math.min(...lengths);
  return { expiresAt: expiry.since + afterMs, afterMs };
}

/** The waiting calls as a pause shows them, in the batch's order; a four-eyes call with its approvals so far. */
export function waitingCallsOf(batch: Batch, source?: Pick<PauseSource, "registry" | "requestedBy">): WaitingCall[] {
  return waitingCalls(batch).map((call) => {
    const approvals = source && pauseApprovals(call, ruleOf(call, source.registry), source.requestedBy);
    return {
      callId: call.callId,
      tool: call.tool,
      args: call.args,
      argsHash: call.argsHash,
      risk: call.risk,
      ...(call.status === "needs_params" ? { missing: call.missing } : {}),
      ...(approvals ? { approvals } : {}),
      ...(call.egress ? { egress: call.egress } : {}),
      ...(call.preview?.result && call.preview.argsHash === call.argsHash ? { preview: call.preview.result } : {}),
    };
  });
}

/** Who must approve the call: its tool's rule for a high-risk call; a low-risk call's answer only fills a form. */
export function ruleOf(call: Pick<WaitingCallPlan, "tool" | "risk">, registry: ToolRegistry): ApprovalRule {
  return approvalRule(call.risk === "high" ? registry.get(call.tool) : undefined);
}

/** Why a call waits, as the pause's reason says it. */
function waitingReason(call: WaitingCallPlan, language: Language): string {
  const words = loopWords(language).pause;
  if (call.egress && call.status === "needs_approval") return egressReason(call.tool, call.egress, language);
  if (call.status === "needs_approval") return words.highRisk(call.tool);
  const fields = call.missing.map((field) => field.name).join(words.listSeparator);
  if (call.risk === "low") return call.reason ?? words.needs(call.tool, fields);
  if (call.egress) return words.needsThenEgress(call.tool, fields, egressReason(call.tool, call.egress, language));
  if (call.reason !== undefined) return words.reasonAndFinalArgs(call.reason, call.tool, words.finalArgs);
  return words.needsAndFinalArgs(call.tool, fields, words.finalArgs);
}
