import { SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { inputLimitOf, targetOf, type ContextBudget } from "../models/context-budget.js";
import { utf8Bytes } from "../models/token-count.js";
import { compactMemory, renderMemory, SHOW_ALL } from "./memory-block.js";
import type { WorkingMemory } from "./memory.js";
import { chooseMessages } from "./history-choice.js";
import { PER_REQUEST, type TokenMeter } from "./request-tokens.js";
import { splitTurns, turnTexts } from "./turns.js";

/** What one model request is built from. */
export interface RequestParts {
  /** The system prompt of this step. */
  systemPrompt: string;
  /** The tool specs offered this step: they count against the window too. */
  tools: readonly unknown[];
  /** The thread's whole history, paired; it stays whole in the state. */
  history: readonly BaseMessage[];
  /** The thread's working memory. */
  memory: WorkingMemory;
}

/** How a request is bounded. */
export interface WindowOptions {
  /** The model's window, reply reserve, margin and encoding. */
  budget: ContextBudget;
  /** Counts tokens with the budget's encoding and margin. */
  meter: TokenMeter;
  /** After the provider refused a request as too long: a tighter limit and a smaller share for memory. */
  hard?: boolean;
  /** Tokens of the request the provider refused: a harder request stays well under it, whatever the budget says. */
  refusedTokens?: number;
}

/** A request that fits the window (design §2.10). */
export interface ModelRequest {
  /** The system message (prompt and memory block), then whole turns and units of the history, in order. */
  messages: BaseMessage[];
  /** Prompt tokens as counted (margin included); without tokenizing, a bound from byte lengths. */
  tokens: number;
  /** The prompt limit it was built for. */
  limit: number;
  /** The size it aimed for: earlier turns and steps fold into working memory above it; only the latest step may pass it. */
  target: number;
  /** Messages of the history the request leaves out (memory stands in for them). */
  omitted: number;
  /** Whether it fits: false only when the prompt, tools and the latest step cannot fit at all. */
  fits: boolean;
  /** Memory after merging, when it had to merge; the caller writes it back. */
  memory?: WorkingMemory;
}

/** Share of the room left by prompt and tools that working memory may take, normally and after a refusal. */
const MEMORY_SHARE = 0.3;
const HARD_MEMORY_SHARE = 0.15;
/** After a refusal the limit shrinks to this fraction (of the budget's, or of the refused request's when smaller). */
const HARD_LIMIT = 0.6;
/** Merging stops below this fraction of memory's share, so it does not run again at the next step. */
const MERGE_TARGET = 0.75;
/** Room a request's target leaves the conversation at least, beyond the prompt and tools (a large tool set raises it). */
const MIN_CONVERSATION_TOKENS = 2_048;

/**
 * Builds the messages of one model request: the system prompt with the working memory of
 * what is left out, whole earlier turns as far as they fit (newest first; then only their
 * questions and answers), and the current run's latest units. Everything but the latest step
 * fits the budget's target; the latest step may take the rest of the limit. Pure: the caller
 * persists the returned memory and keeps the history whole.
 */
export function buildRequest(parts: RequestParts, options: WindowOptions): ModelRequest {
  const { meter } = options;
  const ceiling = Math.min(inputLimitOf(options.budget), options.refusedTokens ?? Number.POSITIVE_INFINITY);
  const limit = Math.floor(ceiling * (options.hard ? HARD_LIMIT : 1));
  // A harder request aims for its own limit, which is already well under the refused one.
  const target = options.hard ? limit : Math.min(limit, targetOf(options.budget));
  // Most requests are small: when the byte lengths alone fit, nothing is tokenized.
  if (!options.hard) {
    const fixedBound = PER_REQUEST + 4 + utf8Bytes(parts.systemPrompt) + toolsBound(parts.tools);
    const bound = fixedBound + historyBound(parts.history, target - fixedBound, meter);
    if (bound <= target) return wholeHistory(parts, { tokens: bound, limit, target });
  }
  const promptTokens = meter.text(parts.systemPrompt);
  const fixed = PER_REQUEST + 4 + promptTokens + meter.tools(parts.tools);
  const aim = Math.min(limit, Math.max(target, fixed + MIN_CONVERSATION_TOKENS));
  // The prompt and tool schemas (counted once, then remembered) may hold most of the bytes: the history is not tokenized either.
  if (!options.hard) {
    const bound = fixed + historyBound(parts.history, aim - fixed, meter);
    if (bound <= aim) return wholeHistory(parts, { tokens: bound, limit, target: aim });
  }
  const turns = splitTurns(parts.history);
  const texts = turnTexts(turns);
  const share = Math.floor(Math.max(0, aim - fixed) * (options.hard ? HARD_MEMORY_SHARE : MEMORY_SHARE));
  let memory = parts.memory;
  let merged = false;
  const whole = renderMemory(memory, texts, SHOW_ALL);
  // Tokens never exceed bytes: a memory whose bytes fit its share is not tokenized.
  if (utf8Bytes(whole) > share && meter.text(whole) > share) {
    memory = compactMemory(memory, { maxTokens: Math.floor(share * MERGE_TARGET), count: meter.text, texts });
    merged = true;
  }
  // Room for messages once memory is set aside: all of it but the latest step, which the request always carries.
  const latestCalls = new Set(turns.at(-1)?.units.at(-1)?.callIds ?? []);
  const reserved = renderMemory(memory, texts, { ...SHOW_ALL, callIds: latestCalls });
  // The bytes bound leaves less room; when even that room takes the whole history, counting would choose the same.
  const rooms = (memoryTokens: number) => ({
    room: aim - fixed - memoryTokens,
    latestRoom: limit - fixed - memoryTokens,
  });
  let chosen = chooseMessages(turns, rooms(utf8Bytes(reserved) + 2), meter);
  // Counted where the request carries it, inside the system prompt: alone, a block may count a few tokens fewer.
  const reservedRooms = rooms(reserved ? meter.text(systemText(parts.systemPrompt, reserved)) - promptTokens : 0);
  if (!takesAll(chosen.messages, parts.history)) chosen = chooseMessages(turns, reservedRooms, meter);
  let built = assembled(parts, memory, texts, chosen, meter);
  // The memory block shrinks or grows with what the messages carry: when earlier turns pushed the request
  // past its aim, choose again in what they took less the overshoot (the latest step may pass it alone).
  for (let overshoot = built.tokens - aim, tries = 0; overshoot > 0 && tries < 3; tries += 1) {
    const used = tokensOf(chosen.messages, meter);
    const retry = chooseMessages(turns, { ...reservedRooms, room: used - overshoot - tries * 8 }, meter);
    if (tokensOf(retry.messages, meter) >= used) break;
    chosen = retry;
    built = assembled(parts, memory, texts, chosen, meter);
    overshoot = built.tokens - aim;
  }
  const { messages, tokens } = built;
  const kept = new Set(chosen.messages);
  return {
    messages,
    tokens,
    limit,
    target: aim,
    omitted: parts.history.filter((message) => !kept.has(message)).length,
    fits: tokens <= limit,
    ...(merged ? { memory } : {}),
  };
}

/** The request of the chosen messages: the system message with the memory of what they leave out, then them. */
function assembled(
  parts: RequestParts,
  memory: WorkingMemory,
  texts: ReturnType<typeof turnTexts>,
  chosen: { messages: BaseMessage[]; wholeFrom: number },
  meter: TokenMeter,
): { messages: BaseMessage[]; tokens: number } {
  const callIds = new Set(
    chosen.messages.flatMap((message) => (ToolMessage.isInstance(message) ? [message.tool_call_id] : [])),
  );
  const block = renderMemory(memory, texts, { callIds, wholeFrom: chosen.wholeFrom });
  const system = new SystemMessage(systemText(parts.systemPrompt, block));
  const messages = [system, ...chosen.messages];
  const tokens = PER_REQUEST + meter.tools(parts.tools) + tokensOf(messages, meter);
  return { messages, tokens };
}

/** The system message's text: the prompt, then the memory block when there is one. */
function systemText(systemPrompt: string, block: string): string {
  return block ? `${systemPrompt}\n\n${block}` : systemPrompt;
}

/** Tokens of the messages as a request carries them. */
function tokensOf(messages: readonly BaseMessage[], meter: TokenMeter): number {
  return messages.reduce((sum, message) => sum + meter.message(message), 0);
}

/** The request of the whole history as it is, and no memory block: it leaves nothing out. */
function wholeHistory(parts: RequestParts, size: Pick<ModelRequest, "tokens" | "limit" | "target">): ModelRequest {
  return { messages: [new SystemMessage(parts.systemPrompt), ...parts.history], ...size, omitted: 0, fits: true };
}

/** Whether `chosen` is the whole history, every message as it is. */
function takesAll(chosen: readonly BaseMessage[], history: readonly BaseMessage[]): boolean {
  return chosen.length === history.length && chosen.every((message, index) => message === history[index]);
}

const specBytes = new WeakMap<object, number>();

/** The tool specs' bound; the registry hands over the same spec objects step after step. */
function toolsBound(tools: readonly unknown[]): number {
  return tools.reduce<number>((sum, tool) => {
    const key = typeof tool === "object" && tool !== null ? tool : undefined;
    let bytes = key ? specBytes.get(key) : undefined;
    if (bytes === undefined) {
      bytes = 8 + utf8Bytes(JSON.stringify(tool) ?? "");
      if (key) specBytes.set(key, bytes);
    }
    return sum + bytes;
  }, 0);
}

/** The history's bound, counted only until it passes `room`: a long thread is not measured to its end. */
function historyBound(history: readonly BaseMessage[], room: number, meter: TokenMeter): number {
  let total = 0;
  for (let index = history.length - 1; index >= 0 && total <= room; index -= 1)
    total += meter.messageBound(history[index]!);
  return total;
}
