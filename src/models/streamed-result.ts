import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";

/**
 * One chat result from a model's streamed chunks, so `invoke()` (what `call_model` calls)
 * sends a streaming request and still returns the whole message. The message stays an
 * `AIMessageChunk`: its `tool_call_chunks` keep the raw argument text that
 * `normalizeModelMessage` needs to tell a call cut off mid-stream from a whole one.
 * Usage comes from the stream's own usage events (summed by `concat`), never estimated.
 */
export async function resultFromStream(chunks: AsyncIterable<ChatGenerationChunk>): Promise<ChatResult> {
  let merged: ChatGenerationChunk | undefined;
  for await (const chunk of chunks) {
    // Finish reason and model name arrive as generation info; keep them on the message, as a JSON reply has them.
    chunk.message.response_metadata = { ...chunk.generationInfo, ...chunk.message.response_metadata };
    merged = merged ? merged.concat(chunk) : chunk;
  }
  if (!merged) throw new Error("The model endpoint closed the stream without sending a reply.");
  return { generations: [{ text: merged.text, message: merged.message, generationInfo: merged.generationInfo }] };
}
