import type { StatementCache } from "../sqlite/statement-cache.js";
import {
  QUEUE_ORDER,
  QUEUED_MESSAGE_COLUMNS,
  queuedMessageFromRow,
  queuedMessageValues,
} from "./queued-message-row.js";
import type { MessageQueueStore } from "../types.js";

type Row = Record<string, unknown>;

/** The message queue on the SQLite connection of `SqliteStorage`. */
export function sqliteMessageQueue(statements: StatementCache): MessageQueueStore {
  return {
    async queueMessage(message) {
      statements
        .get(`INSERT INTO opspilot_queued_messages (${QUEUED_MESSAGE_COLUMNS}) VALUES (${"?, ".repeat(8)}?)`)
        .run(...queuedMessageValues(message));
    },

    async threadQueue(threadId) {
      const rows = statements
        .get(`SELECT * FROM opspilot_queued_messages WHERE thread_id = ? ${QUEUE_ORDER}`)
        .all(threadId) as Row[];
      return rows.map(queuedMessageFromRow);
    },

    async queuedThreads() {
      const rows = statements
        .get("SELECT DISTINCT thread_id FROM opspilot_queued_messages WHERE status = 'pending'")
        .all() as Row[];
      return rows.map((row) => row.thread_id as string);
    },

    async finishQueuedMessage(messageId, { failure }) {
      if (!failure) {
        statements.get("DELETE FROM opspilot_queued_messages WHERE message_id = ?").run(messageId);
        return;
      }
      statements
        .get(
          "UPDATE opspilot_queued_messages SET status = 'failed', error_code = ?, error_message = ?, finished_at = ? WHERE message_id = ? AND status = 'pending'",
        )
        .run(failure.code, failure.message, Date.now(), messageId);
    },

    async removeQueuedMessage(messageId) {
      statements.get("DELETE FROM opspilot_queued_messages WHERE message_id = ?").run(messageId);
    },
  };
}
