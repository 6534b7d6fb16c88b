import { ChatOpenAI, ChatOpenAICompletions, type ChatOpenAIFields } from "@langchain/openai";
import type { BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { toRequestMessages } from "./request-messages.js";
import { modelRetryPolicy } from "./retry-policy.js";

/** Connection settings of an OpenAI-compatible chat endpoint. */
export interface OpenAIModelOptions {
  /** Model name the endpoint knows (gpt-4o-mini, deepseek-chat, qwen-plus, llama3.1, …). */
  model: string;
  /** Base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseURL: string;
  /** Bearer key; loopback endpoints accept any placeholder. */
  apiKey: string;
  /** Time limit of one request attempt, in ms. */
  timeoutMs: number;
  /** Retries after the first attempt (429, 5xx, timeouts, network errors only). */
  maxRetries: number;
}

/** Chat-completions client that sends invalid tool calls as calls, so their ToolMessages are never orphans. */
class PairingSafeCompletions extends ChatOpenAICompletions {
  override _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    return super._generate(toRequestMessages(messages), options, runManager);
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
 * (never from `process.env`): chat-completions API, per-attempt timeout, opspilot's
 * retry policy, and invalid tool calls kept paired in requests. It streams (SSE, with
 * usage) when called through `.stream()` or LangGraph's "messages" stream mode. `ChatOpenAI.withConfig`
 * (used by `bindTools`) rebuilds the model from the same fields, so the completions
 * client passed here survives tool binding.
 */
export function createOpenAIChatModel(options: OpenAIModelOptions): ChatOpenAI {
  const fields: ChatOpenAIFields = {
    model: options.model,
    apiKey: options.apiKey,
    configuration: { baseURL: options.baseURL },
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    onFailedAttempt: modelRetryPolicy,
    useResponsesApi: false,
    // No `streaming` field: `true` makes invoke() estimate tokens with tiktoken, which
    // downloads its tables (hangs offline); `false` would also turn off `.stream()` and
    // LangGraph's "messages" mode, which stream through `_streamResponseChunks` anyway.
  };
  return new ChatOpenAI({ ...fields, completions: new PairingSafeCompletions(fields) });
}
