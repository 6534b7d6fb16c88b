import { createHash } from "node:crypto";
import type { StateSnapshot } from "@langchain/langgraph";
import { type Batch } from "./state.js";
import { callBase, type PlannedCall, type WaitingCallPlan } from "../contracts/calls.js";
import { roleAllows, type ToolRegistry } from "../tools/registry.js";
import { argsHash } from "../contracts/canonical.js";
import {
  ExpiryResumeSchema,
  InterruptValueSchema,
  ResumeValueSchema,
  type Decision,
  type InterruptValue,
  type WaitingCall,
} from "../contracts/pause.js";
import type { CallDecision } from "../contracts/observation.js";
import { durationWords } from "../contracts/duration.js";
import type { Language } from "../contracts/language.js";
import { SYSTEM_ACTOR, type Role, type RunUser } from "../contracts/user.js";
import { describeIssues, missingAskFields } from "./validation.js";
import { egressReason } from "./taint.js";
import { formatZodIssues } from "../contracts/zod-issues.js";
import { decisionsFromHitl, hitlRequestOf, isHitlShaped } from "../contracts/hitl.js";
import {
  approvalCounts,
  approvalRule,
  approvalsLine,
  approverRefusal,
  countedApprovals,
  isFourEyes,
  pauseApprovals,
  type ApprovalRule,
} from "./approvals.js";

/**
 * The pause a thread waits on, if any (the latest interrupt of its pending tasks). A task
 * whose output is saved is past its pause: LangGraph keeps the answered interrupt beside
 * that output until the step's checkpoint is written, so a process that dies in between
 * leaves an interrupt that no answer can match any more.
 */
export function pendingInterrupt(snapshot: StateSnapshot): InterruptValue | undefined {
  const interrupts = snapshot.tasks
    .filter((task) => task.result === undefined)
    .flatMap((task) => task.interrupts ?? []);
  const latest = interrupts[interrupts.length - 1];
  if (!latest) return undefined;
  const parsed = InterruptValueSchema.safeParse(latest.value);
  return parsed.success ? parsed.data : undefined;
}

/** What a thread that no run holds offers the user (design §2.8): answer, continue, or write. */
export type ThreadStanding = { kind: "paused"; interrupt: InterruptValue } | { kind: "unfinished" } | { kind: "idle" };

/**
 * Where a thread stands, from its latest checkpoint. A run whose process died is unfinished
 * whenever its step has tasks: those still to run and those whose output was saved before
 * the step's checkpoint was. `snapshot.next` leaves the second kind out, so it cannot tell
 * such a run from a finished one.
 */
export function threadStanding(snapshot: StateSnapshot): ThreadStanding {
  const interrupt = pendingInterrupt(snapshot);
  if (interrupt) return { kind: "paused", interrupt };
  return snapshot.tasks.length > 0 ? { kind: "unfinished" } : { kind: "idle" };
}

/** Calls of the batch that wait for the user. */
export function waitingCalls(batch: Batch | null): WaitingCallPlan[] {
  return (batch?.calls ?? []).filter(
    (call): call is WaitingCallPlan => call.status === "needs_params" || call.status === "needs_approval",
  );
}

/**
 * The interrupt value of design §4 for the waiting calls; deterministic, since review_calls
 * re-runs on resume. Any high-risk waiting call makes it `confirm_risky`, even when it also
 * waits for fields: the form and the risk are one pause, answered by one approval of the final args.
 */
export function buildInterrupt(batch: Batch, language: Language, source?: PauseSource): InterruptValue {
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
    return language === "zh"
      ? `${reason}${approvalsLine(approvals, language)}。`
      : `${reason} ${approvalsLine(approvals)}.`;
  });
  const deadline = pauseDeadline(batch, source);
  return {
    interruptId,
    interruptType: waiting.some((call) => call.risk === "high") ? "confirm_risky" : "params_required",
    reason: reasons.join(language === "zh" ? "；" : "; "),
    calls,
    // The same pause in LangChain's human-in-the-loop shape, for the UIs that render it.
    ...hitlRequestOf(calls, (_call, index) => reasons[index]!),
    ...(deadline ? { expiresAt: new Date(deadline.expiresAt).toISOString() } : {}),
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

/** When a pause's approvals expire (epoch ms) and after how long it waited then. */
export interface PauseDeadline {
  expiresAt: number;
  afterMs: number;
}

/**
 * When the batch's pause expires: at the earliest `approvalExpiresAfterMs` of its high-risk
 * waiting calls (a pause is one answer: it expires whole). A pause with no such call never
 * expires, so one that only asks for fields waits as long as it takes.
 */
export function pauseDeadline(batch: Batch, expiry: PauseSource | undefined): PauseDeadline | undefined {
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

/** The observation a call gets when its pause expired, in the run's language. */
export function expiredMessage(call: WaitingCallPlan, afterMs: number, language: Language = "en"): string {
  const within = durationWords(afterMs, language);
  const approval = call.risk === "high";
  if (language === "zh")
    return approval
      ? `没有人在 ${within}内批准这次 ${call.tool} 调用。`
      : `没有人在 ${within}内回答这次 ${call.tool} 调用：它所在的等待已过期。`;
  return approval
    ? `No one approved ${call.tool} within ${within}.`
    : `No one answered ${call.tool} within ${within}: the pause it waited in expired.`;
}

/** The waiting calls as a pause shows them, in the batch's order; a four-eyes call with its approvals so far. */
function waitingCallsOf(batch: Batch, source?: Pick<PauseSource, "registry" | "requestedBy">): WaitingCall[] {
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
function ruleOf(call: Pick<WaitingCallPlan, "tool" | "risk">, registry: ToolRegistry): ApprovalRule {
  return approvalRule(call.risk === "high" ? registry.get(call.tool) : undefined);
}

function waitingReason(call: WaitingCallPlan, language: Language): string {
  const zh = language === "zh";
  if (call.egress && call.status === "needs_approval") return egressReason(call.tool, call.egress, language);
  if (call.status === "needs_approval")
    return zh
      ? `${call.tool} 是高风险操作，需要您批准、修改或拒绝。`
      : `${call.tool} is a high-risk action; approve, edit or reject it.`;
  const fields = call.missing.map((field) => field.name).join(zh ? "、" : ", ");
  if (call.risk === "low")
    return call.reason ?? (zh ? `${call.tool} 需要您提供：${fields}` : `${call.tool} needs: ${fields}`);
  if (call.egress)
    return zh
      ? `${call.tool} 需要您提供：${fields}。${egressReason(call.tool, call.egress, language)}`
      : `${call.tool} needs: ${fields}. ${egressReason(call.tool, call.egress, language)}`;
  const approval = zh
    ? "高风险操作：请确认最终参数后批准、修改或拒绝。"
    : "high-risk action: approve the final args, edit or reject it.";
  if (call.reason !== undefined)
    return zh ? `${call.reason}${call.tool} 是${approval}` : `${call.reason} ${call.tool} is a ${approval}`;
  return zh
    ? `${call.tool} 需要您提供：${fields}，且是${approval}`
    : `${call.tool} needs: ${fields}; it is a ${approval}`;
}

/** What a resume is checked against besides the waiting calls. */
export interface ResumeContext {
  /** The tools the graph was built with. */
  registry: ToolRegistry;
  /** The user who answers, with the role of the credential they answer with. */
  answerer: RunUser;
  /** The thread's owner and the roles they hold now, where the caller knows them (a server's token table). */
  owner?: { id: string; roles: readonly Role[] };
  /** The run's language, for the observation a rejection writes (English when absent). */
  language?: Language;
  /** The pause being answered and when its approvals expire: a person's answer is refused after that, opspilot's expiry before. */
  pause?: { interruptId: string; deadline?: PauseDeadline };
  /** The user whose message started the run (`RunInfo.requestedBy`), for `approvals.distinctFromRequester`. */
  requestedBy?: string;
  /** Epoch ms of the answer (the clock by default). */
  now?: number;
}

/** A decision as the records keep it: a person's answer, or opspilot's expiry. */
export interface AnsweredDecision {
  callId: string;
  action: CallDecision["action"];
  message?: string;
}

/** A resume applied to a batch, or why it was refused: an answer that does not fit, or one its user may not give. */
export type ResumeOutcome =
  | {
      ok: true;
      batch: Batch;
      decisions: AnsweredDecision[];
      /** Who decided: `SYSTEM_ACTOR` for an expiry, else absent (the answering user). */
      decidedBy?: RunUser;
    }
  | { ok: false; code: "resume_rejected" | "permission_denied"; error: string };

const rejected = (error: string): ResumeOutcome => ({ ok: false, code: "resume_rejected", error });

/**
 * Applies a resume value to the waiting calls (design §4, §2.5, §2.9); pure. Refuses the
 * whole resume on any mismatch, and any approval or edit of a tool that the answering user
 * (or the thread's owner, today) may not run; a rejection needs no authority.
 */
export function applyResume(batch: Batch, resume: unknown, context: ResumeContext): ResumeOutcome {
  const expiry = ExpiryResumeSchema.safeParse(resume);
  if (expiry.success) return applyExpiry(batch, expiry.data.expire.interruptId, context);
  const deadline = context.pause?.deadline;
  if (deadline && (context.now ?? Date.now()) >= deadline.expiresAt)
    return rejected(
      `This pause expired at ${new Date(deadline.expiresAt).toISOString()}: no answer is taken any more, and its calls are answered approval_expired.`,
    );
  if (isHitlShaped(resume)) {
    // LangChain's shape: decision i answers waiting call i; the mapped decisions take every check below.
    const decisions = decisionsFromHitl(resume, waitingCallsOf(batch));
    if (typeof decisions === "string") return rejected(decisions);
    return applyResume(batch, { decisions }, context);
  }
  const parsed = ResumeValueSchema.safeParse(resume);
  if (!parsed.success) return rejected(`Malformed resume value: ${formatZodIssues(parsed.error, { root: "(value)" })}`);
  const waiting = new Map(waitingCalls(batch).map((call) => [call.callId, call]));
  const decisions = parsed.data.decisions;
  const answered: Array<{ call: WaitingCallPlan; decision: Decision }> = [];
  for (const decision of decisions) {
    const call = waiting.get(decision.callId);
    if (!call) return rejected(`Unknown call id ${decision.callId}; waiting calls: ${[...waiting.keys()].join(", ")}.`);
    if (answered.some((item) => item.call.callId === decision.callId))
      return rejected(`Call ${decision.callId} has more than one decision.`);
    answered.push({ call, decision });
  }
  const unanswered = [...waiting.keys()].filter((id) => !answered.some((item) => item.call.callId === id));
  if (unanswered.length > 0)
    return rejected(`No decision for waiting call(s): ${unanswered.join(", ")}; answer every waiting call.`);
  for (const { call, decision } of answered) {
    const denied =
      decision.action === "reject"
        ? undefined
        : (authorityRefusal(call, context) ??
          approverRefusal({
            call,
            action: decision.action,
            rule: ruleOf(call, context.registry),
            answerer: context.answerer,
            requestedBy: context.requestedBy,
          }));
    if (denied !== undefined) return { ok: false, code: "permission_denied", error: denied };
  }
  const decided = new Map<string, PlannedCall>();
  for (const { call, decision } of answered) {
    const result = decide(call, decision, context);
    if (typeof result === "string") return rejected(result);
    decided.set(call.callId, result);
  }
  return {
    ok: true,
    batch: { ...batch, calls: batch.calls.map((call) => decided.get(call.callId) ?? call) },
    decisions,
  };
}

/**
 * opspilot's expiry of the pause: every waiting call becomes `approval_expired`, decided by
 * `SYSTEM_ACTOR`. Refused unless it names the pause being answered and its deadline has passed,
 * so no one can close a pause early by sending it.
 */
function applyExpiry(batch: Batch, interruptId: string, context: ResumeContext): ResumeOutcome {
  const deadline = context.pause?.deadline;
  if (context.pause?.interruptId !== interruptId)
    return rejected(`Pause ${interruptId} is not the one waiting; nothing expired.`);
  if (!deadline || (context.now ?? Date.now()) < deadline.expiresAt)
    return rejected(`Pause ${interruptId} has not expired; answer it with decisions.`);
  const decisions: AnsweredDecision[] = [];
  const expired = new Map<string, PlannedCall>();
  for (const call of waitingCalls(batch)) {
    const message = expiredMessage(call, deadline.afterMs, context.language);
    const decision: CallDecision = { action: "expire", userId: SYSTEM_ACTOR.id, message, argsBefore: call.args };
    expired.set(call.callId, {
      ...callBase(call),
      decision,
      status: "failed",
      failure: { errorCode: "approval_expired", message },
    });
    decisions.push({ callId: call.callId, action: "expire", message });
  }
  return {
    ok: true,
    batch: { ...batch, calls: batch.calls.map((call) => expired.get(call.callId) ?? call) },
    decisions,
    decidedBy: SYSTEM_ACTOR,
  };
}

function authorityRefusal(call: WaitingCallPlan, context: ResumeContext): string | undefined {
  const tool = context.registry.get(call.tool);
  if (!tool) return undefined;
  const { answerer, owner } = context;
  if (!roleAllows(tool, answerer.role))
    return `Your role (${answerer.role}) is not allowed to use ${tool.name}, so you cannot approve or edit call ${call.callId}; it keeps waiting for a user who may.`;
  if (owner && !owner.roles.some((role) => roleAllows(tool, role)))
    return `The thread's owner (${owner.id}) no longer holds a role allowed to use ${tool.name}, so call ${call.callId} cannot be approved or edited; it keeps waiting.`;
  return undefined;
}

/** The observation a rejected call gets, in the run's language; the user's note is quoted as given. */
export function rejectionMessage(tool: string, note: string | undefined, language: Language = "en"): string {
  if (language === "zh") return note ? `用户拒绝了这次 ${tool} 调用：${note}` : `用户拒绝了这次 ${tool} 调用。`;
  return `The user rejected this ${tool} call${note ? `: ${note}` : "."}`;
}

function decide(call: WaitingCallPlan, decision: Decision, context: ResumeContext): PlannedCall | string {
  if (decision.argsHash !== undefined && decision.argsHash !== call.argsHash) {
    return `argsHash mismatch for call ${call.callId}: it does not match the ${call.tool} call that is waiting; reload the pause and decide again.`;
  }
  // Who answered and what they were shown, so the result can show the answer and its changes.
  const answered = {
    action: decision.action,
    userId: context.answerer.id,
    ...(decision.message ? { message: decision.message } : {}),
    argsBefore: call.args,
  };
  if (decision.action === "reject") {
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
  const hash = argsHash(frozen);
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
