import type { BaseMessage } from "@langchain/core/messages";
import { ContextOverflowError } from "@langchain/core/errors";
import { buildRequest, type ModelRequest, type RequestParts, type WindowOptions } from "./context-window.js";
import { PER_REQUEST, type TokenMeter } from "./request-tokens.js";
import { withCallSignal } from "../models/call-signal.js";

/** What providers say when a request is longer than the model's window. */
const TOO_LONG =
  /context_length_exceeded|maximum context length|context (?:length|window|size)|prompt is too long|input is too long|too many (?:input )?tokens|reduce the length of the (?:messages|prompt|input)/i;

/**
 * Whether a model error says the request does not fit the model's window: LangChain's
 * `ContextOverflowError` (OpenAI's `context_length_exceeded`, Anthropic's "prompt is too
 * long"), or a 400 or 413 from any endpoint whose message or code says so.
 */
export function isContextOverflow(error: unknown): boolean {
  if (ContextOverflowError.isInstance(error)) return true;
  if (typeof error !== "object" || error === null) return false;
  const { status, code, message, cause } = error as {
    status?: unknown;
    code?: unknown;
    message?: unknown;
    cause?: unknown;
  };
  if (code === "context_length_exceeded") return true;
  if (status !== undefined && status !== 400 && status !== 413) return false;
  if (typeof message === "string" && TOO_LONG.test(message)) return true;
  return cause !== undefined && cause !== error && isContextOverflow(cause);
}

/** What can answer a list of messages: the chat model with its tools bound. */
interface Invocable {
  invoke(messages: BaseMessage[], options: { signal: AbortSignal }): Promise<unknown>;
}

/**
 * Calls the model with a request built to fit its window. When the provider still refuses it
 * as too long, builds it once more with a harder compaction and retries once (design §2.10);
 * a second refusal is thrown to the caller, which ends the run with a message that says so.
 */
export async function invokeWithinWindow(
  model: Invocable,
  parts: RequestParts,
  options: WindowOptions & { signal: AbortSignal },
): Promise<{ raw: unknown; request: ModelRequest }> {
  const { signal, ...window } = options;
  const request = buildRequest(parts, window);
  try {
    return { raw: await withCallSignal(signal, (own) => model.invoke(request.messages, { signal: own })), request };
  } catch (error) {
    if (!isContextOverflow(error) || signal.aborted) throw error;
  }
  // Counted, not bounded: the refused request may have gone out on the byte-length fast path.
  const refusedTokens = PER_REQUEST + window.meter.tools(parts.tools) + sumTokens(request.messages, window.meter);
  const harder = buildRequest(parts, { ...window, hard: true, refusedTokens });
  return {
    raw: await withCallSignal(signal, (own) => model.invoke(harder.messages, { signal: own })),
    request: harder,
  };
}

function sumTokens(messages: readonly BaseMessage[], meter: TokenMeter): number {
  return messages.reduce((sum, message) => sum + meter.message(message), 0);
}
