import { randomUUID } from "node:crypto";
import {
  BaseChatModel,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { Runnable } from "@langchain/core/runnables";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";

/** What the scripted model is shown on each call. */
export interface ScriptedCall {
  /** Messages sent to the model (copies). */
  messages: BaseMessage[];
  /** Names of the tools bound at the time. */
  tools: string[];
}

/** One scripted response: a message, an error to throw, or a function of the call. */
export type ScriptStep =
  AIMessage | Error | ((call: ScriptedCall & { index: number }) => AIMessage | Error | Promise<AIMessage | Error>);

/** Options of the scripted model. */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /** Responses, in order. */
  script: ScriptStep[];
  /** Delay before each response, honouring the abort signal. */
  delayMs?: number;
  /** When the script runs out: throw (default) or answer with a plain final message. */
  onExhausted?: "throw" | "answer";
  /** Checked on every call; throw to fail the test with what the model was sent. */
  assertCall?: (call: ScriptedCall, index: number) => void;
}

let generatedIds = 0;

/** A real chat model fed a script, for tests and benchmarks: tool binding, tool-call ids, usage. */
export class ScriptedChatModel extends BaseChatModel {
  /** Every call the model received. */
  readonly calls: ScriptedCall[] = [];
  private readonly script: ScriptStep[];
  private readonly options: ScriptedChatModelOptions;
  private boundTools: string[] = [];

  constructor(options: ScriptedChatModelOptions) {
    super(options);
    this.options = options;
    this.script = [...options.script];
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: BindToolsInput[]): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    this.boundTools = tools.map(toolName);
    return this;
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const index = this.calls.length;
    const call: ScriptedCall = { messages: [...messages], tools: [...this.boundTools] };
    this.calls.push(call);
    this.options.assertCall?.(call, index);
    if (this.options.delayMs) await sleep(this.options.delayMs, options.signal);
    const step = this.script.shift();
    const produced =
      step === undefined ? this.exhausted() : typeof step === "function" ? await step({ ...call, index }) : step;
    if (produced instanceof Error) throw produced;
    const message = withIds(produced, messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }

  private exhausted(): AIMessage {
    if (this.options.onExhausted === "answer") return new AIMessage("Done.");
    throw new Error(`ScriptedChatModel: script exhausted after ${this.calls.length - 1} responses`);
  }
}

function toolName(tool: BindToolsInput): string {
  const candidate = tool as { name?: string; function?: { name?: string } };
  return candidate.function?.name ?? candidate.name ?? "unknown";
}

function withIds(message: AIMessage, input: BaseMessage[]): AIMessage {
  generatedIds += 1;
  const inputChars = input.reduce((sum, m) => sum + String(m.content).length, 0);
  const outputChars = String(message.content).length + JSON.stringify(message.tool_calls ?? []).length;
  const inputTokens = Math.ceil(inputChars / 4);
  const outputTokens = Math.ceil(outputChars / 4);
  return new AIMessage({
    content: message.content,
    id: message.id ?? `scripted-${randomUUID()}`,
    tool_calls: (message.tool_calls ?? []).map((call, i) => ({ ...call, id: call.id ?? `call_${generatedIds}_${i}` })),
    invalid_tool_calls: message.invalid_tool_calls,
    usage_metadata: message.usage_metadata ?? {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
    },
    response_metadata: message.response_metadata,
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error("aborted"));
    };
    // The listener goes with the wait: a signal that outlives the call (a run's) keeps none of it.
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A model turn proposing the given tool calls (ids are optional). */
export function callsMessage(
  calls: Array<{ name: string; args?: Record<string, unknown>; id?: string }>,
  content = "",
): AIMessage {
  return new AIMessage({
    content,
    tool_calls: calls.map((call) => ({
      name: call.name,
      args: call.args ?? {},
      id: call.id,
      type: "tool_call" as const,
    })),
  });
}

/** A model turn that answers with text. */
export function answerMessage(content: string): AIMessage {
  return new AIMessage(content);
}
