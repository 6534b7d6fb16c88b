import type { StatementCache } from "../sqlite/statement-cache.js";
import type { PauseDeadline, PauseDeadlineStore } from "../types.js";

type Row = Record<string, unknown>;

/** A deadline from its row. */
function deadlineFromRow(row: Row): PauseDeadline {
  return {
    threadId: row.thread_id as string,
    interruptId: row.interrupt_id as string,
    expiresAt: Number(row.expires_at),
    userId: row.user_id as string,
    role: row.role as string,
  };
}

/** Pause deadlines on the SQLite connection of `SqliteStorage`. */
export function sqlitePauseDeadlines(statements: StatementCache): PauseDeadlineStore {
  return {
    async trackDeadline(deadline) {
      statements
        .get("INSERT OR REPLACE INTO opspilot_pause_deadlines VALUES (?, ?, ?, ?, ?)")
        .run(deadline.threadId, deadline.interruptId, deadline.expiresAt, deadline.userId, deadline.role);
    },

    async dueDeadlines(now, limit) {
      const rows = statements
        .get("SELECT * FROM opspilot_pause_deadlines WHERE expires_at <= ? ORDER BY expires_at LIMIT ?")
        .all(now, limit) as Row[];
      return rows.map(deadlineFromRow);
    },

    async forgetDeadline(threadId, interruptId) {
      statements
        .get("DELETE FROM opspilot_pause_deadlines WHERE thread_id = ? AND interrupt_id = ?")
        .run(threadId, interruptId);
    },
  };
}
