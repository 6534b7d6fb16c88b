import type { MessageContent } from "@langchain/core/messages";

/** Plain text of message content (a string, or the text of its content blocks). */
export function textOf(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .map((block) =>
      typeof block === "string" ? block : block.type === "text" && typeof block.text === "string" ? block.text : "",
    )
    .join("");
}
