import {
  BaseCallbackHandler,
  type HandleLLMNewTokenCallbackFields,
  type NewTokenIndices,
} from "@langchain/core/callbacks/base";
import type { MessageContent } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Runnable } from "@langchain/core/runnables";

/** A fragment of the text a model turn is writing, as `call_model` hands it to the stream. */
export interface TextDeltaChunk {
  type: "assistant_delta";
  /** The model turn (the same count as the events' `model.step`). */
  step: number;
  /** The next fragment; the fragments of a turn, joined, are its text. */
  text: string;
}

/** Whether a value of the custom stream is a text fragment. */
export function isTextDeltaChunk(value: unknown): value is TextDeltaChunk {
  const candidate = value as Partial<TextDeltaChunk> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.type === "assistant_delta" &&
    typeof candidate.step === "number" &&
    typeof candidate.text === "string"
  );
}

/** Whether the model writes its replies piece by piece (a model that cannot stream gets no handler). */
export function streamsText(model: BaseChatModel): boolean {
  return (
    (model as { _streamResponseChunks?: unknown })._streamResponseChunks !==
    BaseChatModel.prototype._streamResponseChunks
  );
}

/**
 * Hands every text token of a model call to `onText`. It is awaited by the model, so each
 * fragment is handed on before the next one and before the call returns; it does not ask
 * the model to change how it answers (`lc_prefer_streaming` stays off), so the reply
 * `invoke()` returns is the same with or without it.
 */
class TextDeltaHandler extends BaseCallbackHandler {
  name = "TextDeltaHandler";

  constructor(private readonly onText: (text: string) => void) {
    super({ _awaitHandler: true });
  }

  override handleLLMNewToken(
    token: string,
    _index: NewTokenIndices,
    _runId: string,
    _parentRunId?: string,
    _tags?: string[],
    fields?: HandleLLMNewTokenCallbackFields,
  ): void {
    // The chunk tells text from the streamed arguments of a tool call, which some providers also pass as tokens.
    const text = fields?.chunk && "message" in fields.chunk ? answerText(fields.chunk.message.content) : token;
    if (text.length > 0) this.onText(text);
  }
}

/** The answer text of a streamed chunk: a string, or its text blocks (never tool-call input). */
function answerText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .map((block) =>
      typeof block === "string"
        ? block
        : (block.type === "text" || block.type === "text_delta") && typeof block.text === "string"
          ? block.text
          : "",
    )
    .join("");
}

/**
 * The model with a callback that passes each text fragment of its replies to `onText`.
 * Callbacks the caller's context already carries (tracing, LangGraph Studio) are kept.
 */
export function withTextDeltas<Input, Output>(
  model: Runnable<Input, Output>,
  onText: (text: string) => void,
): Runnable<Input, Output> {
  return model.withConfig({ callbacks: [new TextDeltaHandler(onText)] });
}
