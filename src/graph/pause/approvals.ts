import type { CallBase, GivenApproval } from "../../contracts/calls.js";
import type { PauseApprovals } from "../../contracts/pause/pause.js";
import type { Language } from "../../contracts/language.js";
import { loopWords } from "../../contracts/words/loop-words.js";
import type { RunUser } from "../../contracts/user.js";
import type { ToolDefinition } from "../../tools/types.js";

/** Who must approve a tool's calls (`approvals.required`, `approvals.distinctFromRequester`). */
export interface ApprovalRule {
  /** Distinct people whose approval of the same args a call needs before it runs. */
  required: number;
  /** Whether the user whose message started the run is kept from approving or editing. */
  distinctFromRequester: boolean;
}

/** The rule of a tool's policy; one approval by anyone allowed when the policy sets none. */
export function approvalRule(
  tool: Pick<ToolDefinition, "approvalsRequired" | "approvalsDistinctFromRequester"> | undefined,
): ApprovalRule {
  return {
    required: tool?.approvalsRequired ?? 1,
    distinctFromRequester: tool?.approvalsDistinctFromRequester ?? false,
  };
}

/** Whether a rule asks more than one approval by anyone allowed, so a pause shows who approved and who may. */
export function isFourEyes(rule: ApprovalRule): boolean {
  return rule.required > 1 || rule.distinctFromRequester;
}

/** The approvals that count for a call now: those given for its current args (an edit starts the count again). */
export function countedApprovals(call: Pick<CallBase, "approvals" | "argsHash">): GivenApproval[] {
  return (call.approvals ?? []).filter((approval) => approval.argsHash === call.argsHash);
}

/** What a pause shows of a four-eyes call's approvals; undefined for a call one approval decides. */
export function pauseApprovals(
  call: Pick<CallBase, "approvals" | "argsHash">,
  rule: ApprovalRule,
  requestedBy: string | undefined,
): PauseApprovals | undefined {
  if (!isFourEyes(rule)) return undefined;
  return {
    required: rule.required,
    given: countedApprovals(call).map((approval) => ({
      userId: approval.userId,
      role: approval.role,
      at: new Date(approval.at).toISOString(),
    })),
    distinctFromRequester: rule.distinctFromRequester,
    ...(requestedBy !== undefined ? { requestedBy } : {}),
  };
}

/** Whether `answerer`'s approval counts under `rule`: the requester's never does when the rule wants someone else. */
export function approvalCounts(rule: ApprovalRule, answerer: RunUser, requestedBy: string | undefined): boolean {
  return !(rule.distinctFromRequester && answerer.id === requestedBy);
}

/**
 * Why `answerer` may not give this answer under `rule`, if they may not. The requester of a run
 * whose rule wants someone else may fill a form or edit the args (which count no approval and
 * start the count again) but not approve them as shown; a person whose approval of these args
 * already counts may not give it twice. A rejection is never refused here.
 */
export function approverRefusal(options: {
  call: Pick<CallBase, "callId" | "tool" | "approvals" | "argsHash"> & { status: string };
  action: "approve" | "edit";
  rule: ApprovalRule;
  answerer: RunUser;
  requestedBy: string | undefined;
}): string | undefined {
  const { call, rule, answerer, requestedBy } = options;
  if (rule.distinctFromRequester && requestedBy === undefined)
    return `opspilot cannot tell who started this run (it began before that was kept), so call ${call.callId} (${call.tool}), which someone other than the requester must approve, cannot be approved; reject it and ask again.`;
  const asShown = options.action === "approve" && call.status === "needs_approval";
  if (asShown && !approvalCounts(rule, answerer, requestedBy))
    return `You (${answerer.id}) started this run, and ${call.tool} must be approved by someone else; you may edit or reject call ${call.callId}, not approve it.`;
  const counted = countedApprovals(call);
  if (asShown && rule.required > 1 && counted.some((approval) => approval.userId === answerer.id)) {
    const left = rule.required - counted.length;
    return `You (${answerer.id}) already approved call ${call.callId} (${call.tool}); it waits for ${left} more approval${left === 1 ? "" : "s"} from someone else.`;
  }
  return undefined;
}

/** "1 of 2 approvals (olga)", in the run's language; the text the CLI, the notices and the reason share. */
export function approvalsLine(approvals: PauseApprovals, language: Language = "en"): string {
  const names = approvals.given.map((approval) => approval.userId);
  const requester =
    approvals.distinctFromRequester && approvals.requestedBy !== undefined ? approvals.requestedBy : undefined;
  return loopWords(language).pause.approvals(names, approvals.required, requester);
}
