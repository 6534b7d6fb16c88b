import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { MessageView } from "../runtime/runtime.js";
import type { ObservationMeta } from "../../contracts/observation.js";
import type { CallDecisionView, ModelStep, RunEventBody } from "../../contracts/events.js";
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

/** The stream events a new message produces (design §6), in order; tool-call args pass through `viewArgs`. */
export function eventsForMessage(message: BaseMessage, viewArgs: ArgsView): RunEventBody[] {
  const view = toMessageView(message, viewArgs);
  if (!view || view.role === "user") return [];
  if (view.role === "tool") {
    return [
      {
        type: "tool_result",
        callId: view.callId,
        tool: view.tool,
        ok: view.ok,
        ...(view.errorCode ? { errorCode: view.errorCode } : {}),
        summary: view.summary,
        durationMs: view.durationMs,
        ...(view.args ? { args: view.args } : {}),
        ...(view.decision ? { decision: view.decision } : {}),
        ...(view.untrusted ? { untrusted: true as const } : {}),
      },
    ];
  }
  const events: RunEventBody[] = [];
  if (view.content.trim().length > 0)
    events.push({ type: "assistant_message", messageId: view.id, content: view.content });
  for (const call of view.toolCalls)
    events.push({ type: "tool_call", callId: call.callId, tool: call.tool, args: call.args });
  const model = AIMessage.isInstance(message) ? modelStepOf(message) : undefined;
  // Once per turn, so summing the events' figures never counts a turn twice.
  if (model && events[0]) events[0] = { ...events[0], model } as RunEventBody;
  return events;
}

/** The turn's figures `call_model` left on its reply; undefined on messages it did not produce. */
function modelStepOf(message: AIMessage): ModelStep | undefined {
  const meta = message.response_metadata?.opspilot as
    { step?: number; latencyMs?: number; costUsd?: number; retries?: number } | undefined;
  if (typeof meta?.step !== "number" || typeof meta.latencyMs !== "number") return undefined;
  return {
    step: meta.step,
    latencyMs: meta.latencyMs,
    inputTokens: message.usage_metadata?.input_tokens ?? 0,
    outputTokens: message.usage_metadata?.output_tokens ?? 0,
    costUsd: meta.costUsd ?? 0,
    ...(typeof meta.retries === "number" && meta.retries > 0 ? { retries: meta.retries } : {}),
  };
}

/** What identifies an event of a message in the log: its kind and the call or message it is about. */
function eventKey(body: RunEventBody): string | undefined {
  if (body.type === "tool_call" || body.type === "tool_result") return `${body.type}:${body.callId}`;
  if (body.type === "assistant_message") return `assistant_message:${body.messageId}`;
  return undefined;
}

/**
 * Ids of the thread's messages whose events the log already holds. A checkpoint is saved
 * before the events of its messages are appended, so a process that died between the two
 * left messages with no events; only those of the current run (after the last user message)
 * are looked for, so events pruned from older runs are never sent again.
 */
export function recordedMessageIds(
  messages: readonly BaseMessage[],
  logged: readonly RunEventBody[],
  viewArgs: ArgsView,
): Set<string> {
  const keys = new Set(logged.map(eventKey).filter((key) => key !== undefined));
  const lastUser = messages.findLastIndex((message) => HumanMessage.isInstance(message));
  const recorded = new Set<string>();
  messages.forEach((message, index) => {
    if (!message.id) return;
    const own = eventsForMessage(message, viewArgs).map(eventKey);
    if (index <= lastUser || own.length === 0 || own.some((key) => key !== undefined && keys.has(key)))
      recorded.add(message.id);
  });
  return recorded;
}
