import { randomUUID } from "node:crypto";
import { AIMessage, type AIMessageChunk, type InvalidToolCall, type ToolCall } from "@langchain/core/messages";

/** Options of `normalizeModelMessage`. */
export interface NormalizeOptions {
  /**
   * Ids already used in the thread (message ids and tool-call ids). Some
   * OpenAI-compatible servers reuse ids such as `call_0` on every turn; a reused id
   * would break pairing, and a reused message id would replace an older message.
   */
  usedIds?: ReadonlySet<string>;
}

/**
 * Makes a model's reply safe to append to the history: the message gets an id;
 * every tool call (valid or not) gets an id unique in the reply and the thread
 * (duplicates get `_2`, `_3`, …); empty arguments become `{}`; arguments that are
 * not a strict JSON object (malformed, cut off mid-stream, an array) go to
 * `invalid_tool_calls`, which keep their ids so the loop can answer each with an
 * `invalid_args` observation. The raw `additional_kwargs.tool_calls` copy is dropped:
 * after renaming it would disagree. Pass the model's reply as it comes (an
 * `AIMessageChunk` when streamed): `new AIMessage(chunk)` loses the raw stream text
 * that reveals cut-off arguments.
 */
export function normalizeModelMessage(message: AIMessage | AIMessageChunk, options: NormalizeOptions = {}): AIMessage {
  const used = new Set(options.usedIds ?? []);
  const id = claim(message.id ?? randomUUID(), used);
  const toolCalls: ToolCall[] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  const streamedArgs = streamedArgsOfValidCalls(message);

  for (const call of message.tool_calls ?? []) {
    const callId = claim(call.id || newCallId(), used);
    const raw = call.id ? streamedArgs.get(call.id)?.shift() : undefined;
    // A stream cut short parses leniently into partial arguments; never run those.
    if (raw !== undefined && parseArgs(raw) === undefined)
      invalidToolCalls.push(invalid(callId, call.name, raw, "Tool arguments are cut off or not valid JSON."));
    else if (isPlainObject(call.args)) toolCalls.push({ ...call, id: callId, type: "tool_call" });
    else
      invalidToolCalls.push(
        invalid(callId, call.name, JSON.stringify(call.args), "Tool arguments must be a JSON object."),
      );
  }
  for (const call of message.invalid_tool_calls ?? []) {
    const callId = claim(call.id || newCallId(), used);
    // Streamed calls without an id are flagged invalid by @langchain/core even when their arguments parse.
    const args = call.name ? parseArgs(call.args ?? "") : undefined;
    if (call.name && args) toolCalls.push({ type: "tool_call", id: callId, name: call.name, args });
    else invalidToolCalls.push({ ...call, id: callId, type: "invalid_tool_call" });
  }

  const { tool_calls: _raw, ...additionalKwargs } = message.additional_kwargs ?? {};
  return new AIMessage({
    id,
    content: message.content,
    name: message.name,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
    additional_kwargs: additionalKwargs,
  });
}

/**
 * Raw streamed argument texts of the reply's `tool_calls`, per call id in stream order,
 * when the reply was assembled from stream chunks. A server may repeat one id within a
 * reply, so texts are listed per id, and the chunks core already put in
 * `invalid_tool_calls` are taken out: core keeps the order of the chunks in both lists.
 */
function streamedArgsOfValidCalls(message: AIMessage | AIMessageChunk): Map<string, string[]> {
  const chunks = (message as { tool_call_chunks?: Array<{ id?: string; args?: string }> }).tool_call_chunks ?? [];
  const byId = new Map<string, string[]>();
  for (const chunk of chunks) {
    if (!chunk.id || typeof chunk.args !== "string") continue;
    byId.set(chunk.id, [...(byId.get(chunk.id) ?? []), chunk.args]);
  }
  for (const call of message.invalid_tool_calls ?? []) {
    const texts = call.id ? byId.get(call.id) : undefined;
    const index = texts?.indexOf(call.args ?? "") ?? -1;
    if (index >= 0) texts!.splice(index, 1);
  }
  return byId;
}

/** Strictly parsed arguments: an object, `{}` for empty text, undefined for anything else. */
function parseArgs(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function invalid(id: string, name: string | undefined, args: string, error: string): InvalidToolCall {
  return { type: "invalid_tool_call", id, name, args, error };
}

function claim(wanted: string, used: Set<string>): string {
  let candidate = wanted;
  for (let suffix = 2; used.has(candidate); suffix += 1) candidate = `${wanted}_${suffix}`;
  used.add(candidate);
  return candidate;
}

function newCallId(): string {
  return `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
