import type pg from "pg";
import { handoffFromRow, handoffValues, type HandoffStore } from "./handoff-store.js";

/** Hand-overs on the pool of `PostgresStorage`, shared by every process serving the threads. */
export function postgresHandoffs(pool: pg.Pool): HandoffStore {
  return {
    async recordHandoff(run) {
      await pool.query(
        `INSERT INTO opspilot_handoffs VALUES ($1, $2, $3) ON CONFLICT (thread_id) DO UPDATE SET
           user_json = EXCLUDED.user_json, handed_at = EXCLUDED.handed_at`,
        handoffValues(run),
      );
    },

    async handoffs(limit) {
      const { rows } = await pool.query<Record<string, unknown>>(
        "SELECT * FROM opspilot_handoffs ORDER BY handed_at, thread_id LIMIT $1",
        [limit],
      );
      return rows.map(handoffFromRow);
    },

    async forgetHandoff(threadId, handedAt) {
      await pool.query("DELETE FROM opspilot_handoffs WHERE thread_id = $1 AND handed_at = $2", [threadId, handedAt]);
    },
  };
}
