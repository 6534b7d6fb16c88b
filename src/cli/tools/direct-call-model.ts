import { randomUUID } from "node:crypto";
import { BaseChatModel, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { AIMessage, HumanMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { textOf } from "../../models/message-text.js";

/** The word that starts the user message of a `--call` run. */
const CALL_WORD = "/call";

/** One tool call asked for on the command line. */
export interface DirectCall {
  /** Tool name, as the registry knows it. */
  tool: string;
  /** Its arguments (a JSON object). */
  args: Record<string, unknown>;
}

/** The user message of a `--call` run: `/call <tool> <json args>`, which `DirectCallModel` proposes as it reads. */
export function callMessage(call: DirectCall): string {
  return `${CALL_WORD} ${call.tool} ${JSON.stringify(call.args)}`;
}

/** The call a `/call` message names, or undefined for any other text. */
export function parseCallMessage(text: string): DirectCall | undefined {
  const match = /^\/call (\S+) (\{[\s\S]*\})$/.exec(text.trim());
  if (!match) return undefined;
  try {
    const args = JSON.parse(match[2]!) as unknown;
    if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
    return { tool: match[1]!, args: args as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

const NOTHING_TO_DO =
  "No model runs here (--call / --no-model): this reply only relays tool observations, and the run has none to relay.";

/**
 * The chat model of `--call` and `--no-model`: no model at all, so one tool can be run
 * through the real loop (validation, roles, approvals, journal, masking, records). Read
 * from the conversation like any model: after a `/call <tool> <json>` message it proposes
 * exactly that call; after tool results it answers with their observations as they are,
 * the JSON a model would have read. It never calls a network and spends no tokens.
 */
export class DirectCallModel extends BaseChatModel {
  static override lc_name(): string {
    return "DirectCallModel";
  }

  constructor() {
    super({});
  }

  _llmType(): string {
    return "opspilot-direct-call";
  }

  /** Tools change nothing: the call comes from the user's message, and the loop validates it like a model's. */
  override bindTools(_tools: BindToolsInput[]): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    return this;
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    options.signal?.throwIfAborted();
    const message = reply(messages);
    return { generations: [{ text: textOf(message.content), message }] };
  }
}

/** The observations after the last tool calls, else the call the latest user message names, else a plain note. */
function reply(messages: readonly BaseMessage[]): AIMessage {
  const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  const id = `direct-${randomUUID()}`;
  const results: string[] = [];
  for (let index = messages.length - 1; index >= 0 && ToolMessage.isInstance(messages[index]); index--)
    results.unshift(textOf(messages[index]!.content));
  if (results.length > 0) return new AIMessage({ id, content: results.join("\n"), usage_metadata: usage });
  const last = messages.at(-1);
  const call = last && HumanMessage.isInstance(last) ? parseCallMessage(textOf(last.content)) : undefined;
  if (!call) return new AIMessage({ id, content: NOTHING_TO_DO, usage_metadata: usage });
  return new AIMessage({
    id,
    content: "",
    tool_calls: [
      {
        type: "tool_call",
        id: `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`,
        name: call.tool,
        args: call.args,
      },
    ],
    usage_metadata: usage,
  });
}
