import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
  type ContentBlock,
  type ToolCall,
} from "@langchain/core/messages";
import { textOf } from "../message-text.js";
import { toRequestMessages } from "../request-messages.js";

/** Characters a `tool_use` id may not hold; ids from other providers (`functions.search:0`) can. */
const INVALID_ID_CHARACTERS = /[^a-zA-Z0-9_-]/g;

/** Text of the user turn put first when a history does not start with one (the API requires it). */
const OPENING_USER_TEXT = "(earlier conversation)";

/** A content block of a user turn as the Messages API takes it. */
type UserBlock = ContentBlock & { type: string };

type Turn =
  | { role: "user"; results: UserBlock[]; other: UserBlock[] }
  | { role: "assistant"; texts: string[]; calls: ToolCall[] };

/**
 * The messages as the Anthropic Messages API must receive them, whatever the history
 * holds: system messages first (they become the top-level `system` field), then turns
 * that alternate user / assistant starting with a user turn. Each ToolMessage becomes a
 * `tool_result` block in the user turn that follows its `tool_use` turn (parallel
 * results together, before any text, as the API requires), with `is_error: true` for a
 * failed observation. Consecutive messages of one role are merged; invalid tool calls
 * are sent as calls with `{}` arguments so their results are never orphans; assistant
 * content is re-sent as text plus `tool_use` blocks built from `tool_calls`, so ids
 * renamed by `normalizeModelMessage` are the ids the server sees (with characters the
 * API refuses in an id replaced by `_`, in the call and its result alike). Pure.
 */
export function toAnthropicRequestMessages(messages: readonly BaseMessage[]): BaseMessage[] {
  const system: BaseMessage[] = [];
  const turns: Turn[] = [];
  for (const message of toRequestMessages(messages)) {
    if (SystemMessage.isInstance(message)) system.push(message);
    else if (ToolMessage.isInstance(message)) push(turns, { role: "user", results: [toolResult(message)], other: [] });
    else if (AIMessage.isInstance(message)) {
      const text = textOf(message.content).trim();
      push(turns, { role: "assistant", texts: text ? [text] : [], calls: message.tool_calls ?? [] });
    } else push(turns, { role: "user", results: [], other: userBlocks(message) });
  }
  const nonEmpty = turns.filter((turn) =>
    turn.role === "user" ? turn.results.length + turn.other.length > 0 : turn.texts.length + turn.calls.length > 0,
  );
  const merged: Turn[] = [];
  for (const turn of nonEmpty) push(merged, turn);
  if (merged[0]?.role === "assistant")
    merged.unshift({ role: "user", results: [], other: [{ type: "text", text: OPENING_USER_TEXT }] });
  return [...system, ...merged.map(toMessage)];
}

/** Whether a ToolMessage reports a failure: its status, or opspilot's observation metadata. */
export function isFailedObservation(message: ToolMessage): boolean {
  return message.status === "error" || (message.artifact as { ok?: unknown } | undefined)?.ok === false;
}

function push(turns: Turn[], turn: Turn): void {
  const last = turns.at(-1);
  if (last?.role === "user" && turn.role === "user") {
    last.results.push(...turn.results);
    last.other.push(...turn.other);
  } else if (last?.role === "assistant" && turn.role === "assistant") {
    last.texts.push(...turn.texts);
    last.calls.push(...turn.calls);
  } else
    turns.push(
      turn.role === "user"
        ? { ...turn, results: [...turn.results], other: [...turn.other] }
        : { ...turn, texts: [...turn.texts], calls: [...turn.calls] },
    );
}

function toolResult(message: ToolMessage): UserBlock {
  return {
    type: "tool_result",
    tool_use_id: wireId(message.tool_call_id),
    content: textOf(message.content),
    ...(isFailedObservation(message) ? { is_error: true } : {}),
  };
}

function userBlocks(message: BaseMessage): UserBlock[] {
  if (typeof message.content === "string")
    return message.content.trim() ? [{ type: "text", text: message.content }] : [];
  return (message.content as UserBlock[]).filter((block) => block.type !== "text" || String(block.text ?? "").trim());
}

function toMessage(turn: Turn): BaseMessage {
  if (turn.role === "user") return new HumanMessage({ content: [...turn.results, ...turn.other] });
  return new AIMessage({
    content: turn.texts.join("\n\n"),
    tool_calls: turn.calls.map((call) => ({ ...call, id: wireId(call.id ?? ""), type: "tool_call" })),
  });
}

/** The id as the API accepts it; a call and its result map to the same one. */
function wireId(id: string): string {
  return id.replace(INVALID_ID_CHARACTERS, "_");
}
