import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { proposedCalls } from "./pairing.js";

/**
 * Renames call ids that already occur earlier in the history (some providers reuse
 * `call_0` every turn), so every id in a thread is answered by exactly one ToolMessage.
 * A message id already in the history is replaced too: the messages reducer would
 * otherwise overwrite the earlier message with this one.
 */
export function makeCallIdsUnique(message: AIMessage, history: readonly BaseMessage[], step: number): AIMessage {
  if (!message.id || history.some((earlier) => earlier.id === message.id)) message = withId(message, randomUUID());
  const seen = new Set(history.flatMap((m) => proposedCalls(m).map((call) => call.id)));
  const rename = (id: string | undefined, index: number): string => {
    let candidate = id && id.length > 0 ? id : `call_s${step}_${index}`;
    for (let n = 2; seen.has(candidate); n++) candidate = `${id ?? "call"}_s${step}_${n}`;
    seen.add(candidate);
    return candidate;
  };
  const toolCalls = (message.tool_calls ?? []).map((call, index) => ({ ...call, id: rename(call.id, index) }));
  const offset = toolCalls.length;
  const invalid = (message.invalid_tool_calls ?? []).map((call, index) => ({ ...call, id: rename(call.id, offset + index) }));
  if (toolCalls.every((call, i) => call.id === message.tool_calls?.[i]?.id) && invalid.every((call, i) => call.id === message.invalid_tool_calls?.[i]?.id)) {
    return message;
  }
  return new AIMessage({
    id: message.id,
    content: message.content,
    tool_calls: toolCalls,
    invalid_tool_calls: invalid,
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
    // Raw provider tool calls would carry the old ids; the parsed ones above are authoritative.
    additional_kwargs: { ...message.additional_kwargs, tool_calls: undefined },
  });
}

function withId(message: AIMessage, id: string): AIMessage {
  return new AIMessage({
    id,
    content: message.content,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
    additional_kwargs: message.additional_kwargs,
  });
}
