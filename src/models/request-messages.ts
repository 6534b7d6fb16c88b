import { AIMessage, type BaseMessage, type ToolCall } from "@langchain/core/messages";

/** Tool name sent for an invalid call that came without one (OpenAI requires a name). */
const UNNAMED_TOOL = "invalid_tool_call";

/**
 * The messages as a chat-completions request must carry them. `@langchain/openai`
 * 1.5.8 sends only `tool_calls` when a reply has any, so the reply's
 * `invalid_tool_calls` vanish and their ToolMessages become orphans (HTTP 400); when
 * a reply has only invalid calls it falls back to the raw `additional_kwargs` copy.
 * Here every invalid call is sent as a call with arguments `{}` (the ToolMessage
 * answering it says why), so the pairing the loop keeps is the pairing the server
 * sees. Pure: messages without invalid calls are returned as they are.
 */
export function toRequestMessages(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map((message) =>
    AIMessage.isInstance(message) && message.invalid_tool_calls?.length ? foldInvalidCalls(message) : message,
  );
}

function foldInvalidCalls(message: AIMessage): AIMessage {
  const folded: ToolCall[] = (message.invalid_tool_calls ?? []).map((call) => ({
    type: "tool_call",
    id: call.id,
    name: call.name || UNNAMED_TOOL,
    args: {},
  }));
  const { tool_calls: _raw, ...additionalKwargs } = message.additional_kwargs ?? {};
  return new AIMessage({
    id: message.id,
    content: message.content,
    name: message.name,
    tool_calls: [...(message.tool_calls ?? []), ...folded],
    invalid_tool_calls: [],
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
    additional_kwargs: additionalKwargs,
  });
}
