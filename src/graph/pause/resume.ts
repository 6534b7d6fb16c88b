import { loopWords } from "../../contracts/words/loop-words.js";
import type { Batch } from "../state.js";
import { callBase, type PlannedCall, type WaitingCallPlan } from "../../contracts/calls.js";
import { roleAllows } from "../../tools/registry.js";
import { ExpiryResumeSchema, ResumeValueSchema, type Decision } from "../../contracts/pause/pause.js";
import type { CallDecision } from "../../contracts/observation.js";
import { durationWords } from "../../contracts/formats/duration.js";
import type { Language } from "../../contracts/language.js";
import { SYSTEM_ACTOR } from "../../contracts/user.js";
import { formatZodIssues } from "../../contracts/formats/zod-issues.js";
import { decisionsFromHitl, isHitlShaped } from "../../contracts/pause/hitl.js";
import { approverRefusal } from "./approvals.js";
import { waitingCalls } from "./standing.js";
import { ruleOf, waitingCallsOf, type PauseExpiry } from "./interrupt.js";
import { decide, judgeDecision } from "./decide.js";
import type {
  AnsweredDecision,
  JudgedDecision,
  ResumeCheck,
  ResumeContext,
  ResumeOutcome,
  ResumeRefusal,
} from "./resume-types.js";

const rejected = (error: string): ResumeRefusal => ({ ok: false, code: "resume_rejected", error });

/**
 * Checks a resume value against the waiting calls (design §4, §2.5, §2.9) without applying
 * it; pure. Refuses the whole resume on any mismatch, and any approval or edit of a tool that
 * the answering user (or the thread's owner, today) may not run; a rejection needs no authority.
 * The service checks an answer with this before it sends it; `review_calls` applies it.
 */
export function checkResume(batch: Batch, resume: unknown, context: ResumeContext): ResumeCheck {
  const expiry = ExpiryResumeSchema.safeParse(resume);
  if (expiry.success) return checkExpiry(expiry.data.expire.interruptId, context);
  const deadline = context.pause?.deadline;
  if (deadline && (context.now ?? Date.now()) >= deadline.expiresAt)
    return rejected(
      `This pause expired at ${new Date(deadline.expiresAt).toISOString()}: no answer is taken any more, and its calls are answered approval_expired.`,
    );
  if (isHitlShaped(resume)) {
    // LangChain's shape: decision i answers waiting call i; the mapped decisions take every check below.
    const decisions = decisionsFromHitl(resume, waitingCallsOf(batch));
    if (typeof decisions === "string") return rejected(decisions);
    return checkResume(batch, { decisions }, context);
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
  const answers: JudgedDecision[] = [];
  for (const { call, decision } of answered) {
    const judged = judgeDecision(call, decision, context);
    if (typeof judged === "string") return rejected(judged);
    answers.push(judged);
  }
  return { ok: true, kind: "answers", answers, decisions };
}

/**
 * Applies a resume value to the waiting calls once it passed `checkResume`; pure but for the
 * clock of a four-eyes approval. Only `review_calls` applies an answer.
 */
export function applyResume(batch: Batch, resume: unknown, context: ResumeContext): ResumeOutcome {
  const checked = checkResume(batch, resume, context);
  if (!checked.ok) return checked;
  if (checked.kind === "expiry") return applyExpiry(batch, checked.expiry, context);
  const decided = new Map<string, PlannedCall>(
    checked.answers.map((judged) => [judged.call.callId, decide(judged, context)]),
  );
  return {
    ok: true,
    batch: { ...batch, calls: batch.calls.map((call) => decided.get(call.callId) ?? call) },
    decisions: checked.decisions,
  };
}

/**
 * opspilot's expiry of the pause is taken only when it names the pause being answered and its
 * deadline has passed, so no one can close a pause early by sending it.
 */
function checkExpiry(interruptId: string, context: ResumeContext): ResumeCheck {
  const deadline = context.pause?.deadline;
  if (context.pause?.interruptId !== interruptId)
    return rejected(`Pause ${interruptId} is not the one waiting; nothing expired.`);
  if (!deadline || (context.now ?? Date.now()) < deadline.expiresAt)
    return rejected(`Pause ${interruptId} has not expired; answer it with decisions.`);
  return { ok: true, kind: "expiry", expiry: deadline };
}

/** Every waiting call becomes `approval_expired`, decided by `SYSTEM_ACTOR`. */
function applyExpiry(batch: Batch, expiry: PauseExpiry, context: ResumeContext): ResumeOutcome {
  const decisions: AnsweredDecision[] = [];
  const expired = new Map<string, PlannedCall>();
  for (const call of waitingCalls(batch)) {
    const message = expiredMessage(call, expiry.afterMs, context.language);
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

/** Why the answering user (or the thread's owner, today) may not approve or edit the call, if they may not. */
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

/** The observation a call gets when its pause expired, in the run's language. */
export function expiredMessage(call: WaitingCallPlan, afterMs: number, language: Language = "en"): string {
  const within = durationWords(afterMs, language);
  return loopWords(language).pause.expired(call.tool, within, call.risk === "high");
}
