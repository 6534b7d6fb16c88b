import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { boundObservation, jsonStringEnd, readRestNote } from "../execution/sanitize.js";
import type { Observation } from "../contracts/observation.js";
import type { TokenMeter } from "./request-tokens.js";

/**
 * A copy of a ToolMessage or user message cut so that, as a message, it comes to about
 * `maxTokens` (its own overhead, the role and call id, counted), for one request only: the
 * thread keeps the whole message (design §2.10). A cut result stays an observation the model
 * can read, with the note that says how to page the rest.
 */
export function cutMessage(message: BaseMessage, messageTokens: number, meter: TokenMeter): BaseMessage {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  const cut = (maxChars: number) =>
    ToolMessage.isInstance(message)
      ? cutObservation(content, maxChars, message.tool_call_id)
      : `${content.slice(0, maxChars)}… [cut to fit the model's context window]`;
  const tokens = Math.max(1, meter.text(content));
  // The text's aim: the message's budget less what the message costs beyond its text.
  const maxTokens = Math.max(1, messageTokens - Math.max(0, meter.message(message) - tokens));
  let maxChars = Math.floor((content.length * maxTokens) / tokens);
  let text = cut(maxChars);
  // Over its aim: shorter in proportion to the overshoot, so the cut keeps about as much as fits; by a
  // quarter at least after three tries, where a fixed envelope (the note, the JSON keys) slows that down.
  for (let attempt = 0; attempt < 8 && maxChars > 0; attempt += 1) {
    const textTokens = meter.text(text);
    if (textTokens <= maxTokens) break;
    const proportional = Math.floor(((maxChars * maxTokens) / textTokens) * 0.99);
    maxChars = Math.min(maxChars - 1, proportional, attempt >= 3 ? Math.floor(maxChars * 0.75) : proportional);
    text = cut(maxChars);
  }
  if (ToolMessage.isInstance(message))
    return new ToolMessage({
      id: message.id,
      content: text,
      tool_call_id: message.tool_call_id,
      name: message.name,
      status: message.status,
      artifact: message.artifact,
    });
  return new HumanMessage({ id: message.id, content: text });
}

/** An observation's JSON text cut to `maxChars`, or a plain text cut when it is not one. */
function cutObservation(content: string, maxChars: number, callId: string): string {
  const parsed = parseObservation(content);
  if (!parsed) return `${content.slice(0, Math.max(0, maxChars - 60))}… [cut to fit the model's context window]`;
  if (parsed.ok && parsed.truncated && typeof parsed.data === "string")
    return shorterPreview(parsed as Observation & { ok: true; data: string }, maxChars, callId);
  return boundObservation(parsed, maxChars, callId).content;
}

/** A result that is already a preview (a start of the stored JSON text): a shorter start, and where to read on. */
function shorterPreview(observation: Observation & { ok: true; data: string }, maxChars: number, callId: string) {
  const { data, truncated, ...rest } = observation;
  const originalChars = truncated?.originalChars ?? data.length;
  const envelope = (kept: string) => ({
    ...rest,
    data: kept,
    truncated: { originalChars, keptChars: kept.length },
    note: readRestNote(callId, kept.length),
  });
  const overhead = JSON.stringify(envelope("")).length + String(data.length).length * 2;
  const end = jsonStringEnd(data, 0, Math.max(0, maxChars - overhead));
  return JSON.stringify(envelope(data.slice(0, end)));
}

function parseObservation(content: string): Observation | undefined {
  try {
    const value = JSON.parse(content) as { ok?: unknown; note?: unknown };
    if (typeof value !== "object" || value === null || typeof value.ok !== "boolean") return undefined;
    const { note: _note, ...observation } = value;
    return observation as Observation;
  } catch {
    return undefined;
  }
}
