import type { StatementCache } from "../sqlite/statement-cache.js";
import { handoffFromRow, handoffValues, type HandoffStore } from "./handoff-store.js";

/** Hand-overs on the SQLite connection of `SqliteStorage`. */
export function sqliteHandoffs(statements: StatementCache): HandoffStore {
  return {
    async recordHandoff(run) {
      statements.get("INSERT OR REPLACE INTO opspilot_handoffs VALUES (?, ?, ?)").run(...handoffValues(run));
    },

    async handoffs(limit) {
      const rows = statements
        .get("SELECT * FROM opspilot_handoffs ORDER BY handed_at, thread_id LIMIT ?")
        .all(limit) as Array<Record<string, unknown>>;
      return rows.map(handoffFromRow);
    },

    async forgetHandoff(threadId, handedAt) {
      statements.get("DELETE FROM opspilot_handoffs WHERE thread_id = ? AND handed_at = ?").run(threadId, handedAt);
    },
  };
}
