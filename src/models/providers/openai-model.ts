import { ChatOpenAI, ChatOpenAICompletions, type ChatOpenAIFields } from "@langchain/openai";
import type { BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { toRequestMessages } from "../request-messages.js";
import { modelRetryPolicy } from "../retry-policy.js";
import { idleTimeoutFetch } from "../idle-timeout-fetch.js";
import { resultFromStream } from "../streamed-result.js";
import { rememberEndpoint } from "./model-endpoint.js";

/** Connection settings of an OpenAI-compatible chat endpoint. */
export interface OpenAIModelOptions {
  /** Model name the endpoint knows (gpt-4o-mini, deepseek-chat, qwen-plus, llama3.1, …). */
  model: string;
  /** Base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseURL: string;
  /** Bearer key; loopback endpoints accept any placeholder. */
  apiKey: string;
  /** Time limit, in ms, for the response to start and then for each silence within its stream. */
  timeoutMs: number;
  /** Retries after the first attempt (429, 5xx, timeouts, network errors only). */
  maxRetries: number;
}

/**
 * Chat-completions client that sends invalid tool calls as calls, so their ToolMessages
 * are never orphans, and that answers `invoke()` from a streamed request.
 */
class PairingSafeCompletions extends ChatOpenAICompletions {
  /**
   * Streams even when called through `invoke()`. Stock `streaming: true` does the same
   * but then estimates token counts with tiktoken, which downloads its tables on first
   * use (hangs offline) and is not what the endpoint billed; the stream's own usage
   * event (`stream_options.include_usage`) is used instead.
   */
  override _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    options.signal?.throwIfAborted();
    return resultFromStream(this._streamResponseChunks(messages, options, runManager));
  }

  override _streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    return super._streamResponseChunks(toRequestMessages(messages), options, runManager);
  }

  override _streamChatModelEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): ReturnType<ChatOpenAICompletions["_streamChatModelEvents"]> {
    return super._streamChatModelEvents(toRequestMessages(messages), options, runManager);
  }
}

/**
 * A `ChatOpenAI` for any OpenAI-compatible endpoint, configured only from `options`
 * (never from `process.env`): chat-completions API, opspilot's retry policy, and invalid
 * tool calls kept paired in requests. Every request streams (SSE, with usage), also
 * through `invoke()`, so a slow local model is never cut off mid-answer: the SDK's
 * `timeout` covers the wait for the response headers (retried like a 5xx), and the
 * same limit then applies to each silence in the stream, never to the whole answer.
 * `ChatOpenAI.withConfig` (used by `bindTools`) rebuilds the model from the same fields,
 * so the completions client passed here survives tool binding.
 */
export function createOpenAIChatModel(options: OpenAIModelOptions): ChatOpenAI {
  const fields: ChatOpenAIFields = {
    model: options.model,
    apiKey: options.apiKey,
    configuration: { baseURL: options.baseURL, fetch: idleTimeoutFetch(options.timeoutMs) },
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    onFailedAttempt: modelRetryPolicy,
    useResponsesApi: false,
    // No `streaming` field: `PairingSafeCompletions._generate` streams without the stock
    // token estimate; `false` would turn off `.stream()` and LangGraph's "messages" mode.
    // Token usage of a streamed reply comes only from the usage event this asks for.
    streamUsage: true,
  };
  return rememberEndpoint(
    new ChatOpenAI({ ...fields, completions: new PairingSafeCompletions(fields) }),
    options.baseURL,
  );
}
