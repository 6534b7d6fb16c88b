import type { QueuedMessage } from "../types.js";

/** Columns a new queued message is inserted with, in the order `queuedMessageValues` gives them. */
export const QUEUED_MESSAGE_COLUMNS =
  "message_id, thread_id, strategy, message, user_id, role, options, created_at, status";

/** The values of a new queued message's row, in `QUEUED_MESSAGE_COLUMNS` order. */
export function queuedMessageValues(message: Omit<QueuedMessage, "status" | "failure">): unknown[] {
  return [
    message.messageId,
    message.threadId,
    message.strategy,
    message.message,
    message.userId,
    message.role,
    message.options ? JSON.stringify(message.options) : null,
    message.queuedAt,
    "pending",
  ];
}

/** A queued message from its row. */
export function queuedMessageFromRow(row: Record<string, unknown>): QueuedMessage {
  return {
    messageId: row.message_id as string,
    threadId: row.thread_id as string,
    strategy: row.strategy as QueuedMessage["strategy"],
    message: row.message as string,
    userId: row.user_id as string,
    role: row.role as string,
    ...(row.options === null ? {} : { options: JSON.parse(row.options as string) as Record<string, unknown> }),
    queuedAt: Number(row.created_at),
    status: row.status as QueuedMessage["status"],
    ...(row.error_code === null
      ? {}
      : { failure: { code: row.error_code as string, message: (row.error_message as string | null) ?? "" } }),
  };
}

/** Interrupts first, then in the order they were queued. */
export const QUEUE_ORDER = "ORDER BY (strategy = 'interrupt') DESC, seq";
