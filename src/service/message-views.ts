import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { MessageView } from "./runtime.js";
import type { ObservationMeta } from "../contracts/observation.js";
import type { ModelStep, RunEventBody } from "../contracts/events.js";
import { messageText } from "../graph/run-info.js";
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
    };
  }
  return undefined;
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
    { step?: number; latencyMs?: number; costUsd?: number } | undefined;
  if (typeof meta?.step !== "number" || typeof meta.latencyMs !== "number") return undefined;
  return {
    step: meta.step,
    latencyMs: meta.latencyMs,
    inputTokens: message.usage_metadata?.input_tokens ?? 0,
    outputTokens: message.usage_metadata?.output_tokens ?? 0,
    costUsd: meta.costUsd ?? 0,
  };
}
