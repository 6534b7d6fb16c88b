import type { QueuedMessage } from "../../storage/types.js";
import type { QueuedMessageView } from "../runtime/runtime.js";

/** The thread's waiting messages as clients see them: pending ones numbered in the order they run, then refused ones. */
export function queuedViews(messages: readonly QueuedMessage[]): QueuedMessageView[] {
  let position = 0;
  return messages.map((message) => ({
    messageId: message.messageId,
    content: message.message,
    strategy: message.strategy,
    ...(message.status === "pending" ? { position: ++position } : {}),
    queuedAt: new Date(message.queuedAt).toISOString(),
    userId: message.userId,
    ...(message.failure ? { failed: message.failure } : {}),
  }));
}
