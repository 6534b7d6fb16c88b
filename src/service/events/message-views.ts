import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { MessageView } from "../runtime/runtime.js";
import type { ObservationMeta } from "../../contracts/observation.js";
import type { CallDecisionView } from "../../contracts/events.js";
import { messageText } from "../../graph/run-info.js";
import type { ArgsView } from "./args-view.js";

/** A message as clients see it; system messages are not shown. Tool-call args pass through `viewArgs`. */
export function toMessageView(message: BaseMessage, viewArgs: ArgsView): MessageView | undefined {
  const id = message.id ?? "";
  if (HumanMessage.isInstance(message)) return { id, role: "user", content: messageText(message) };
  if (AIMessage.isInstance(message)) {
    const toolCalls = [
      ...(message.tool_calls ?? []),
      ...(message.invalid_tool_calls ?? []).map((call) => ({ id: call.id, name: call.name ?? "", args: call.args })),
    ].map((call) => ({
      callId: call.id ?? "",
      tool: call.name,
      args: viewArgs(call.name, call.args),
    }));
    return { id, role: "assistant", content: messageText(message), toolCalls };
  }
  if (ToolMessage.isInstance(message)) {
    const meta = (message.artifact ?? {}) as Partial<ObservationMeta>;
    return {
      id,
      role: "tool",
      callId: message.tool_call_id,
      tool: message.name ?? "",
      ok: meta.ok ?? message.status !== "error",
      ...(meta.errorCode ? { errorCode: meta.errorCode } : {}),
      summary: meta.summary ?? "",
      durationMs: meta.durationMs ?? 0,
      content: messageText(message),
      ...decisionView(message.name ?? "", meta, viewArgs),
      ...(meta.untrusted ? { untrusted: true as const } : {}),
    };
  }
  return undefined;
}

/**
 * The args that ran and the person's answer, both masked through `viewArgs`; the changes
 * compare what the pause showed with what the answer gave, key by key, so the defaults the
 * tool's schema filled in are not credited to the person (answers recorded before the answer's
 * args were kept compare with what ran).
 */
function decisionView(
  tool: string,
  meta: Partial<ObservationMeta>,
  viewArgs: ArgsView,
): { args?: Record<string, unknown>; decision?: CallDecisionView } {
  const decision = meta.decision;
  if (!decision) return {};
  const ran = meta.args ? asRecord(viewArgs(tool, meta.args)) : undefined;
  const shown = givenView(tool, decision.argsBefore, viewArgs);
  const answered = decision.argsAnswered ? givenView(tool, decision.argsAnswered, viewArgs) : ran;
  const changes = answered ? argChanges(shown ?? {}, answered) : [];
  return {
    ...(ran ? { args: ran } : {}),
    decision: {
      action: decision.action,
      by: decision.userId,
      ...(decision.message ? { message: decision.message } : {}),
      ...(decision.approvers ? { approvers: decision.approvers } : {}),
      ...(decision.kind ? { kind: decision.kind } : {}),
      ...(changes.length > 0 ? { changes } : {}),
    },
  };
}

/** `args` as shown (validated and masked), keeping only the keys they were given with: no schema defaults. */
function givenView(tool: string, args: Record<string, unknown>, viewArgs: ArgsView): Record<string, unknown> {
  const view = asRecord(viewArgs(tool, args)) ?? {};
  return Object.fromEntries(Object.entries(view).filter(([key]) => key in args));
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Keys whose value differs between `before` and `after` (compared as JSON), in `after`'s order, then dropped keys. */
function argChanges(before: Record<string, unknown>, after: Record<string, unknown>) {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const changes: Array<{ field: string; before?: unknown; after?: unknown }> = [];
  for (const [field, value] of Object.entries(after)) {
    if (!(field in before)) changes.push({ field, after: value });
    else if (!same(before[field], value)) changes.push({ field, before: before[field], after: value });
  }
  for (const [field, value] of Object.entries(before)) if (!(field in after)) changes.push({ field, before: value });
  return changes;
}
