import { loopWords } from "../../contracts/words/loop-words.js";
import type { PlannedCall, WaitingCallPlan } from "../../contracts/calls.js";
import { callBase } from "../../contracts/calls.js";
import { argsHash } from "../../contracts/formats/canonical.js";
import type { Decision } from "../../contracts/pause/pause.js";
import type { Language } from "../../contracts/language.js";
import { describeIssues, missingAskFields } from "../calls/validation.js";
import { approvalCounts, countedApprovals, isFourEyes } from "./approvals.js";
import { ruleOf } from "./interrupt.js";
import type { JudgedDecision, ResumeContext } from "./resume-types.js";

/**
 * Checks one decision against its waiting call without applying it (pure): the `argsHash` it
 * was shown, the params it may fill, the fields still missing and the tool's schema. The
 * refusal as a sentence, or the decision with the args it would leave.
 */
export function judgeDecision(
  call: WaitingCallPlan,
  decision: Decision,
  context: Pick<ResumeContext, "registry">,
): JudgedDecision | string {
  if (decision.argsHash !== undefined && decision.argsHash !== call.argsHash) {
    return `argsHash mismatch for call ${call.callId}: it does not match the ${call.tool} call that is waiting; reload the pause and decide again.`;
  }
  if (decision.action === "reject") return { call, decision: { ...decision, action: "reject" } };
  const tool = context.registry.get(call.tool);
  if (!tool) return `Call ${call.callId}: the tool ${call.tool} is no longer available; reject the call.`;
  let args: Record<string, unknown>;
  if (decision.action === "edit") args = { ...decision.args };
  else {
    const asked = call.status === "needs_params" ? call.missing.map((field) => field.name) : [];
    // An approval may fill what the pause asked for; anything else would change what the user was shown.
    const extra = Object.keys(decision.params ?? {}).filter((name) => !asked.includes(name));
    if (extra.length > 0)
      return `Call ${call.callId} (${call.tool}): params may only fill the missing fields (${asked.join(", ") || "none"}); ${extra.map((name) => `"${name}"`).join(", ")} ${extra.length === 1 ? "was" : "were"} not asked for. To change other args, use action "edit".`;
    if (call.status === "needs_params" && !decision.params)
      return `Call ${call.callId} (${call.tool}) needs params: ${asked.join(", ")}.`;
    args = { ...call.args, ...decision.params };
  }
  const stillMissing = missingAskFields(tool, args);
  if (stillMissing.length > 0)
    return `Call ${call.callId} (${call.tool}) still misses: ${stillMissing.map((f) => f.name).join(", ")}.`;
  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) return describeIssues(tool.name, parsed.error);
  const frozen = parsed.data as Record<string, unknown>;
  return {
    call,
    decision: { ...decision, action: decision.action },
    answeredArgs: args,
    frozen,
    frozenHash: argsHash(frozen),
  };
}

/**
 * The call a checked decision leaves (pure but for the clock of a four-eyes approval): rejected,
 * ready with its args frozen, or, for a four-eyes call, still waiting for its next approval.
 */
export function decide(judged: JudgedDecision, context: ResumeContext): PlannedCall {
  const { call, decision } = judged;
  // Who answered and what they were shown, so the result can show the answer and its changes.
  const answered = {
    action: decision.action,
    userId: context.answerer.id,
    ...(decision.message ? { message: decision.message } : {}),
    argsBefore: call.args,
    // A low-risk call that waited for fields was filled, not approved.
    kind: call.status === "needs_params" && call.risk === "low" && !call.egress ? "params" : "approval",
  } as const;
  if (!("frozen" in judged)) {
    return {
      ...callBase(call),
      decision: answered,
      status: "failed",
      failure: {
        errorCode: "rejected_by_user",
        message: rejectionMessage(call.tool, decision.message, context.language),
      },
    };
  }
  const { frozen, frozenHash: hash, answeredArgs: args } = judged;
  const rule = ruleOf(call, context.registry);
  const ready = { ...callBase(call), args: frozen, argsHash: hash, approvedHash: hash, status: "ready" as const };
  if (!isFourEyes(rule)) return { ...ready, decision: { ...answered, argsAnswered: args } };
  // Four eyes: this answer is one approval of the args it leaves (none from a requester the rule excludes);
  // an edit, or a form filled, starts the count again.
  const { id: userId, role } = context.answerer;
  const approvals = [
    ...(call.approvals ?? []),
    ...(approvalCounts(rule, context.answerer, context.requestedBy)
      ? [{ userId, role, argsHash: hash, at: context.now ?? Date.now() }]
      : []),
  ];
  const counted = countedApprovals({ approvals, argsHash: hash });
  if (counted.length < rule.required)
    return { ...callBase(call), args: frozen, argsHash: hash, approvals, status: "needs_approval" };
  return {
    ...ready,
    approvals,
    decision: { ...answered, argsAnswered: args, approvers: counted.map((approval) => approval.userId) },
  };
}

/** The observation a rejected call gets, in the run's language; the user's note is quoted as given. */
export function rejectionMessage(tool: string, note: string | undefined, language: Language = "en"): string {
  return loopWords(language).pause.rejected(tool, note);
}
