import type pg from "pg";
import {
  QUEUE_ORDER,
  QUEUED_MESSAGE_COLUMNS,
  queuedMessageFromRow,
  queuedMessageValues,
} from "./queued-message-row.js";
import type { MessageQueueStore } from "../types.js";

/** The message queue on the pool of `PostgresStorage`, shared by every process serving the threads. */
export function postgresMessageQueue(pool: pg.Pool): MessageQueueStore {
  return {
    async queueMessage(message) {
      const placeholders = Array.from({ length: 9 }, (_, index) => `$${index + 1}`).join(", ");
      await pool.query(
        `INSERT INTO opspilot_queued_messages (${QUEUED_MESSAGE_COLUMNS}) VALUES (${placeholders})`,
        queuedMessageValues(message),
      );
    },

    async threadQueue(threadId) {
      const { rows } = await pool.query<Record<string, unknown>>(
        `SELECT * FROM opspilot_queued_messages WHERE thread_id = $1 ${QUEUE_ORDER}`,
        [threadId],
      );
      return rows.map(queuedMessageFromRow);
    },

    async queuedThreads() {
      const { rows } = await pool.query<{ thread_id: string }>(
        "SELECT DISTINCT thread_id FROM opspilot_queued_messages WHERE status = 'pending'",
      );
      return rows.map((row) => row.thread_id);
    },

    async finishQueuedMessage(messageId, { failure }) {
      if (!failure) {
        await pool.query("DELETE FROM opspilot_queued_messages WHERE message_id = $1", [messageId]);
        return;
      }
      await pool.query(
        "UPDATE opspilot_queued_messages SET status = 'failed', error_code = $1, error_message = $2, finished_at = $3 WHERE message_id = $4 AND status = 'pending'",
        [failure.code, failure.message, Date.now(), messageId],
      );
    },

    async removeQueuedMessage(messageId) {
      await pool.query("DELETE FROM opspilot_queued_messages WHERE message_id = $1", [messageId]);
    },
  };
}
