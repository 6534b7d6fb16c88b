import { randomUUID } from "node:crypto";
import {
  BaseChatModel,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  type ToolCall,
  type UsageMetadata,
} from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { Runnable } from "@langchain/core/runnables";
import { writeAnswer } from "./answer.js";
import { detectIntent, followUp } from "./intent.js";
import { inIncident } from "./incident/incident-intent.js";
import { planNextCalls } from "./plan.js";
import { earlierRequests, readTurn } from "./turn.js";
import { BoundToolNames } from "./tool-names.js";
import { textOf } from "../../models/message-text.js";
import { textFragments } from "./fragments.js";

/** Options of the demo model. */
export interface DemoChatModelOptions extends BaseChatModelParams {
  /** Tools bound to this instance (set by `bindTools`). */
  tools?: readonly BindToolsInput[];
}

/**
 * The offline demo model: a real chat model (tool binding, tool-call ids, usage,
 * streaming) that plans from the conversation and the real observations over the
 * demo tools, proposes only tools that are bound, and labels every answer as coming
 * from the demo model. Deterministic apart from ids.
 */
export class DemoChatModel extends BaseChatModel {
  /** Names of the bound tools, in binding order. */
  readonly boundTools: readonly string[];
  private readonly tools: readonly BindToolsInput[];
  private readonly params: DemoChatModelOptions;

  static override lc_name(): string {
    return "DemoChatModel";
  }

  constructor(options: DemoChatModelOptions = {}) {
    super(options);
    this.params = options;
    this.tools = options.tools ?? [];
    this.boundTools = this.tools.map(toolName).filter((name): name is string => name !== undefined);
  }

  _llmType(): string {
    return "opspilot-demo";
  }

  /** A new demo model with these tools bound; the receiver is left unchanged. */
  override bindTools(tools: BindToolsInput[]): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    return new DemoChatModel({ ...this.params, tools });
  }

  /** The whole reply; a caller that listens for tokens gets its text in fragments first, as from a streaming model. */
  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    options.signal?.throwIfAborted();
    const message = this.respond(messages);
    const text = textOf(message.content);
    if (runManager) {
      for (const piece of textFragments(text)) {
        options.signal?.throwIfAborted();
        const chunk = new ChatGenerationChunk({
          message: new AIMessageChunk({ id: message.id, content: piece }),
          text: piece,
        });
        await runManager.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
      }
    }
    return { generations: [{ text, message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = this.respond(messages);
    const id = message.id;
    const text = textOf(message.content);
    // Text in words and a few Chinese characters at a time, then every tool call as one chunk, then the usage.
    const pieces = textFragments(text);
    const chunks = [
      ...pieces.map((piece) => new AIMessageChunk({ id, content: piece })),
      ...message.tool_calls!.map(
        (call, index) =>
          new AIMessageChunk({
            id,
            content: "",
            tool_call_chunks: [
              { type: "tool_call_chunk", index, id: call.id, name: call.name, args: JSON.stringify(call.args) },
            ],
          }),
      ),
      new AIMessageChunk({ id, content: "", usage_metadata: message.usage_metadata }),
    ];
    for (const chunk of chunks) {
      options.signal?.throwIfAborted();
      const content = textOf(chunk.content);
      const generation = new ChatGenerationChunk({ message: chunk, text: content });
      yield generation;
      await runManager?.handleLLMNewToken(content, undefined, undefined, undefined, undefined, { chunk: generation });
    }
  }

  /** The reply to a conversation: the next tool calls, or the answer once nothing is left to learn. */
  private respond(messages: BaseMessage[]): AIMessage {
    const names = new BoundToolNames(this.boundTools);
    const turn = names.bareTurn(readTurn(messages));
    const earlier = earlierRequests(messages);
    const intent = inIncident(followUp(detectIntent(turn.request), earlier), earlier);
    const bound = names.bare();
    const calls = planNextCalls(turn, intent, bound);
    const toolCalls: ToolCall[] = calls.map((call) => ({
      type: "tool_call",
      id: `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`,
      name: names.bound(call.name),
      args: call.args,
    }));
    const content = toolCalls.length > 0 ? "" : writeAnswer(turn, intent, bound);
    return new AIMessage({
      id: `demo-${randomUUID()}`,
      content,
      tool_calls: toolCalls,
      usage_metadata: usageOf(messages, this.tools, content, toolCalls),
      response_metadata: {
        model_provider: "opspilot-demo",
        model_name: "demo",
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
      },
    });
  }
}

/** Token count in the way real tokenizers roughly behave: one per Han character, one per four other characters. */
function estimateTokens(text: string): number {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  return han + Math.ceil((text.length - han) / 4);
}

function usageOf(
  messages: BaseMessage[],
  tools: readonly BindToolsInput[],
  content: string,
  toolCalls: ToolCall[],
): UsageMetadata {
  const perMessageOverhead = 4;
  const input =
    messages.reduce((sum, message) => {
      const calls = (message as { tool_calls?: unknown[] }).tool_calls;
      return (
        sum +
        perMessageOverhead +
        estimateTokens(textOf(message.content)) +
        (calls?.length ? estimateTokens(JSON.stringify(calls)) : 0)
      );
    }, 0) + tools.reduce((sum, tool) => sum + estimateTokens(toolText(tool)), 0);
  const output =
    estimateTokens(content) +
    (toolCalls.length > 0 ? estimateTokens(JSON.stringify(toolCalls.map(({ name, args }) => ({ name, args })))) : 0);
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}

/** What a tool definition costs in the prompt: its OpenAI function spec, or its name and description. */
function toolText(tool: BindToolsInput): string {
  const candidate = tool as { name?: unknown; description?: unknown; function?: unknown };
  if (candidate.function && typeof candidate.function === "object") return JSON.stringify(candidate.function);
  return `${String(candidate.name ?? "")} ${String(candidate.description ?? "")}`;
}

function toolName(tool: BindToolsInput): string | undefined {
  const candidate = tool as { name?: unknown; function?: { name?: unknown } };
  const name = candidate.function?.name ?? candidate.name;
  return typeof name === "string" ? name : undefined;
}
