import { ChatAnthropic, type AnthropicInput } from "@langchain/anthropic";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { toAnthropicRequestMessages } from "./anthropic-messages.js";
import { idleTimeoutFetch } from "../idle-timeout-fetch.js";
import { textOf } from "../message-text.js";
import { rememberEndpoint } from "./model-endpoint.js";
import { modelRetryPolicy } from "../retry-policy.js";

/** Connection settings of the Anthropic Messages API. */
export interface AnthropicModelOptions {
  /** Model name, e.g. claude-sonnet-4-5 or claude-haiku-4-5. */
  model: string;
  /** Base URL without `/v1`, e.g. https://api.anthropic.com or a gateway in front of it. */
  baseURL: string;
  /** Sent as `x-api-key`. */
  apiKey: string;
  /** Time limit, in ms, for the response to start and then for each silence within its stream. */
  timeoutMs: number;
  /** Retries after the first attempt (429, 5xx and 529, timeouts, network errors only). */
  maxRetries: number;
}

/**
 * `ChatAnthropic` with opspilot's adapter around it: requests keep the Messages API's
 * rules whatever the history holds (`toAnthropicRequestMessages`), and a reply looks
 * like an OpenAI-compatible one to the rest of opspilot: text content as a string,
 * tool calls in `tool_calls`, the streamed argument text in `tool_call_chunks`.
 */
class AdaptedChatAnthropic extends ChatAnthropic {
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    let first = true;
    for await (const chunk of super._streamResponseChunks(toAnthropicRequestMessages(messages), options, runManager)) {
      const usage = (chunk.message as AIMessageChunk).usage_metadata;
      // message_start counts an output token that message_delta's cumulative count includes again.
      if (first && usage) (chunk.message as AIMessageChunk).usage_metadata = countInputOnly(usage);
      first = false;
      yield chunk;
    }
  }

  override _streamChatModelEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): ReturnType<ChatAnthropic["_streamChatModelEvents"]> {
    return super._streamChatModelEvents(toAnthropicRequestMessages(messages), options, runManager);
  }

  /** Streams (the model is built with `streaming: true`), then flattens the content blocks. */
  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const result = await super._generate(messages, options, runManager);
    // ChatAnthropic ends a cancelled stream quietly; a partial reply must not pass as an answer.
    options.signal?.throwIfAborted();
    return {
      ...result,
      generations: result.generations.map((generation) => ({
        ...generation,
        message: flatten(generation.message as AIMessageChunk),
      })),
    };
  }
}

/**
 * A chat model for the Anthropic Messages API, configured only from `options` (never
 * from `process.env`: the base URL and key are always passed, so `ChatAnthropic` and the
 * SDK never fall back to their own environment variables). Every request streams, also
 * through `invoke()`; the SDK's `timeout` covers the wait for the response headers
 * (retried), and the same limit then applies to each silence in the stream, never to
 * the whole answer. Retries follow the OpenAI path's policy.
 */
export function createAnthropicChatModel(options: AnthropicModelOptions): ChatAnthropic {
  const fields: AnthropicInput & BaseChatModelParams = {
    model: options.model,
    apiKey: options.apiKey,
    anthropicApiUrl: options.baseURL,
    clientOptions: { timeout: options.timeoutMs, fetch: idleTimeoutFetch(options.timeoutMs), authToken: null },
    maxRetries: options.maxRetries,
    onFailedAttempt: modelRetryPolicy,
    streaming: true,
    streamUsage: true,
  };
  return rememberEndpoint(new AdaptedChatAnthropic(fields), options.baseURL);
}

function countInputOnly(usage: NonNullable<AIMessageChunk["usage_metadata"]>): AIMessageChunk["usage_metadata"] {
  return { ...usage, output_tokens: 0, total_tokens: usage.input_tokens };
}

/** The reply with its text blocks joined into a string; tool calls and their raw streamed arguments kept. */
function flatten(message: AIMessageChunk): AIMessageChunk {
  return new AIMessageChunk({
    id: message.id,
    content: textOf(message.content),
    tool_call_chunks: message.tool_call_chunks,
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
    additional_kwargs: message.additional_kwargs,
  });
}
