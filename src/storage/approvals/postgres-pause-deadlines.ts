import type pg from "pg";
import type { PauseDeadline, PauseDeadlineStore } from "../types.js";

/** A deadline from its row. */
function deadlineFromRow(row: Record<string, unknown>): PauseDeadline {
  return {
    threadId: row.thread_id as string,
    interruptId: row.interrupt_id as string,
    // BIGINT comes back as text.
    expiresAt: Number(row.expires_at),
    userId: row.user_id as string,
    role: row.role as string,
  };
}

/** Pause deadlines on the pool of `PostgresStorage`, shared by every process serving the threads. */
export function postgresPauseDeadlines(pool: pg.Pool): PauseDeadlineStore {
  return {
    async trackDeadline(deadline) {
      await pool.query(
        `INSERT INTO opspilot_pause_deadlines VALUES ($1, $2, $3, $4, $5) ON CONFLICT (thread_id) DO UPDATE SET
           interrupt_id = EXCLUDED.interrupt_id, expires_at = EXCLUDED.expires_at, user_id = EXCLUDED.user_id, role = EXCLUDED.role`,
        [deadline.threadId, deadline.interruptId, deadline.expiresAt, deadline.userId, deadline.role],
      );
    },

    async dueDeadlines(now, limit) {
      const { rows } = await pool.query<Record<string, unknown>>(
        "SELECT * FROM opspilot_pause_deadlines WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2",
        [now, limit],
      );
      return rows.map(deadlineFromRow);
    },

    async forgetDeadline(threadId, interruptId) {
      await pool.query("DELETE FROM opspilot_pause_deadlines WHERE thread_id = $1 AND interrupt_id = $2", [
        threadId,
        interruptId,
      ]);
    },
  };
}
