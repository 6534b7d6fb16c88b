import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ContextBudget } from "../models/context-budget.js";
import { tokenCounter, utf8Bytes, type TextTokenCounter } from "../models/token-count.js";

/** Tokens a chat request spends on each message besides its text (role, separators). */
const PER_MESSAGE = 4;
/** Per tool call in an assistant message, and per tool offered. */
const PER_CALL = 8;
/** The reply's priming tokens. */
export const PER_REQUEST = 3;

/** Counts what a model request carries, with the budget's margin, never above a text's UTF-8 bytes. */
export interface TokenMeter {
  /** Tokens of a text. */
  text(text: string): number;
  /** Tokens of a message as a chat request carries it (cached by message id). */
  message(message: BaseMessage): number;
  /** A bound on `message()` from byte lengths alone: no tokenizer runs. */
  messageBound(message: BaseMessage): number;
  /** Tokens of the tool specs offered. */
  tools(tools: readonly unknown[]): number;
}

const MESSAGES_KEPT = 20_000;
/** Texts whose tokens a meter remembers (the least recently measured goes). */
const TEXTS_KEPT = 16;
/** Lines of long texts whose tokens a meter remembers. */
const LINES_KEPT = 4_096;
/** Texts from this length on are counted line by line. */
const SPLIT_MIN_CHARS = 2_000;
const messageTokens = new Map<string, number>();
const toolTokens = new WeakMap<object, number>();

/** A meter for one budget; `counter` defaults to the shared counter of the budget's encoding. */
export function tokenMeter(budget: Pick<ContextBudget, "encoding" | "margin">, counter?: TextTokenCounter): TokenMeter {
  const text = counter ?? tokenCounter(budget.encoding);
  // The texts measured lately: the system prompt comes back every step, a memory block while it does not change.
  const recent = new Map<string, number>();
  // Lines of long texts measured lately: a system message whose memory block grew by a line costs that line.
  // Keyed by length and hash: a line split from a text would keep the whole text alive as a key.
  const lines = new Map<string, number>();
  const measureLine = (line: string): number => {
    const bytes = utf8Bytes(line);
    if (bytes <= 16) return bytes;
    const key = `${line.length}:${fnv1a(line)}`;
    let tokens = lines.get(key);
    if (tokens === undefined) {
      tokens = Math.min(bytes, Math.ceil(text.count(line) * budget.margin));
      if (lines.size >= LINES_KEPT) lines.delete(lines.keys().next().value as string);
      lines.set(key, tokens);
    }
    return tokens;
  };
  const measure = (value: string): number => {
    if (value.length === 0) return 0;
    const bytes = utf8Bytes(value);
    // Short texts: the bytes are close enough, and no tokenizer has to load.
    if (bytes <= 16) return bytes;
    let tokens = recent.get(value);
    if (tokens === undefined) {
      // A long text of many lines is counted line by line, each newline as a token of its own (which the tokenizers
      // often merge with what is next to it, so the sum errs high), and a line seen before is not counted again.
      const split = value.length >= SPLIT_MIN_CHARS ? value.split("\n") : undefined;
      tokens =
        split && split.length > 2
          ? Math.min(
              bytes,
              split.reduce((sum, line) => sum + measureLine(line), split.length - 1),
            )
          : Math.min(bytes, Math.ceil(text.count(value) * budget.margin));
      if (recent.size >= TEXTS_KEPT) recent.delete(recent.keys().next().value as string);
      recent.set(value, tokens);
    }
    return tokens;
  };
  const parts = (message: BaseMessage): string[] => [
    typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    callsText(message),
    ToolMessage.isInstance(message) ? message.tool_call_id : "",
  ];
  const overhead = (message: BaseMessage) => PER_MESSAGE + PER_CALL * callCount(message);
  // Within a run the graph hands over the same message objects step after step; across runs, ids and hashes find them.
  const byObject = new WeakMap<BaseMessage, number>();
  const boundByObject = new WeakMap<BaseMessage, number>();
  return {
    text: measure,
    message(message) {
      const known = byObject.get(message);
      if (known !== undefined) return known;
      const key = message.id ? cacheKey(budget, message) : undefined;
      let tokens = key === undefined ? undefined : messageTokens.get(key);
      if (tokens === undefined) {
        tokens = overhead(message) + parts(message).reduce((sum, part) => sum + measure(part), 0);
        if (key !== undefined) {
          if (messageTokens.size >= MESSAGES_KEPT) messageTokens.clear();
          messageTokens.set(key, tokens);
        }
      }
      byObject.set(message, tokens);
      return tokens;
    },
    messageBound(message) {
      let bound = boundByObject.get(message);
      if (bound === undefined) {
        bound = overhead(message) + parts(message).reduce((sum, part) => sum + utf8Bytes(part), 0);
        boundByObject.set(message, bound);
      }
      return bound;
    },
    tools(tools) {
      return tools.reduce<number>((sum, tool) => {
        const key = typeof tool === "object" && tool !== null ? tool : undefined;
        const cached = key ? toolTokens.get(key) : undefined;
        const tokens = cached ?? PER_CALL + measure(JSON.stringify(tool) ?? "");
        if (key && cached === undefined) toolTokens.set(key, tokens);
        return sum + tokens;
      }, 0);
    },
  };
}

/** The message's id with a hash of what it carries: an id alone may repeat across threads (`call_0`). */
function cacheKey(budget: Pick<ContextBudget, "encoding" | "margin">, message: BaseMessage): string {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  const carried = `${content}\u0000${callsText(message)}`;
  return `${budget.encoding}:${budget.margin}:${message.getType()}:${message.id}:${carried.length}:${fnv1a(carried)}`;
}

/** 32-bit FNV-1a over UTF-16 units: a few microseconds for a capped observation. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function callCount(message: BaseMessage): number {
  if (!AIMessage.isInstance(message)) return 0;
  return (message.tool_calls?.length ?? 0) + (message.invalid_tool_calls?.length ?? 0);
}

function callsText(message: BaseMessage): string {
  if (!AIMessage.isInstance(message) || callCount(message) === 0) return "";
  // As the wire carries them: the arguments a JSON string inside JSON, escapes and all.
  const wire = (id: string | undefined, name: string | undefined, args: string) => ({
    id,
    type: "function",
    function: { name, arguments: args },
  });
  const valid = (message.tool_calls ?? []).map((call) => wire(call.id, call.name, JSON.stringify(call.args ?? {})));
  const invalid = (message.invalid_tool_calls ?? []).map((call) => wire(call.id, call.name, call.args ?? ""));
  return JSON.stringify([...valid, ...invalid]);
}
