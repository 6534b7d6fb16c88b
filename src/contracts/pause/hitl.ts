import { z } from "zod";
import { formatZodIssues } from "../formats/zod-issues.js";

/** What the mapping reads of a waiting call (opspilot's `WaitingCall`). */
interface WaitingCall {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  argsHash: string;
  missing?: readonly unknown[];
}

/** An opspilot decision, as `ResumeValueSchema` then checks it. */
interface Decision {
  callId: string;
  action: "approve" | "edit" | "reject";
  argsHash?: string;
  args?: Record<string, unknown>;
  message?: string;
}

/**
 * LangChain v1's human-in-the-loop shapes (`HITLRequest` and `HITLResponse` of
 * `humanInTheLoopMiddleware`), which agent-chat-ui and Agent Inbox render and answer.
 * An opspilot pause carries the request beside its own fields, and a resume may come in the
 * response shape: it is mapped onto opspilot's decisions, which keep every check.
 */

/** One action a reviewer is shown: the waiting call's tool and args. */
export const ActionRequestSchema = z.object({
  name: z.string(),
  args: z.record(z.string(), z.unknown()),
  description: z.string().optional(),
});

/** What a reviewer may answer for the action at the same index. */
export const ReviewConfigSchema = z.object({
  actionName: z.string(),
  allowedDecisions: z.array(z.enum(["approve", "edit", "reject"])),
});

/** One reviewer decision of LangChain's `HITLResponse`. */
const HitlDecisionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("approve") }).strict(),
  z
    .object({
      type: z.literal("edit"),
      editedAction: z.object({ name: z.string().min(1), args: z.record(z.string(), z.unknown()) }).strict(),
    })
    .strict(),
  z.object({ type: z.literal("reject"), message: z.string().max(2000).optional() }).strict(),
]);

/** LangChain's `HITLResponse`: one decision per action request, in the same order. */
export const HitlResponseSchema = z.object({ decisions: z.array(HitlDecisionSchema).min(1) }).strict();

/** An action request of a pause. */
export type ActionRequest = z.infer<typeof ActionRequestSchema>;
/** A review config of a pause. */
export type ReviewConfig = z.infer<typeof ReviewConfigSchema>;
/** A resume in LangChain's shape. */
export type HitlResponse = z.infer<typeof HitlResponseSchema>;

/**
 * The `actionRequests` and `reviewConfigs` of the waiting calls, in their order. A call that
 * misses fields cannot be approved as shown: its reviewer fills them with an edit, or rejects.
 */
export function hitlRequestOf(
  calls: readonly WaitingCall[],
  describe: (call: WaitingCall, index: number) => string,
): { actionRequests: ActionRequest[]; reviewConfigs: ReviewConfig[] } {
  return {
    actionRequests: calls.map((call, index) => ({
      name: call.tool,
      args: call.args,
      description: describe(call, index),
    })),
    reviewConfigs: calls.map((call) => ({
      actionName: call.tool,
      allowedDecisions: call.missing?.length ? ["edit", "reject"] : ["approve", "edit", "reject"],
    })),
  };
}

/** Whether a resume value is meant in LangChain's shape (its decisions carry `type`, not `action`). */
export function isHitlShaped(resume: unknown): boolean {
  if (typeof resume !== "object" || resume === null) return false;
  const decisions = (resume as { decisions?: unknown }).decisions;
  return (
    Array.isArray(decisions) &&
    decisions.some((decision) => typeof decision === "object" && decision !== null && "type" in decision)
  );
}

/**
 * opspilot's decisions for a resume in LangChain's shape, decision `i` answering waiting call
 * `i`. An approval is bound to the args the reviewer was shown (their `argsHash`), an edit may
 * change the args but not the tool; every other check is `applyResume`'s. A string is the refusal.
 */
export function decisionsFromHitl(resume: unknown, calls: readonly WaitingCall[]): Decision[] | string {
  const parsed = HitlResponseSchema.safeParse(resume);
  if (!parsed.success) return `Malformed resume value: ${formatZodIssues(parsed.error, { root: "(value)" })}`;
  const { decisions } = parsed.data;
  if (decisions.length !== calls.length)
    return `The pause waits on ${calls.length} call(s) but the resume has ${decisions.length} decision(s); give one per action request, in order.`;
  const mapped: Decision[] = [];
  for (const [index, decision] of decisions.entries()) {
    const call = calls[index]!;
    const base = { callId: call.callId, argsHash: call.argsHash };
    if (decision.type === "approve") mapped.push({ ...base, action: "approve" });
    else if (decision.type === "reject")
      mapped.push({
        callId: call.callId,
        action: "reject",
        ...(decision.message ? { message: decision.message } : {}),
      });
    else if (decision.editedAction.name !== call.tool)
      return `Decision ${index + 1} edits call ${call.callId} into ${decision.editedAction.name}; an edit may change the args of ${call.tool}, not the tool.`;
    else mapped.push({ ...base, action: "edit", args: decision.editedAction.args });
  }
  return mapped;
}
