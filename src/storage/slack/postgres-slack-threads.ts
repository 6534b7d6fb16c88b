import type pg from "pg";
import { claimSql } from "./schema.js";
import { rowOf } from "./sqlite-slack-threads.js";
import type { SlackThreadStore } from "./types.js";

/** The incidents' Slack messages on the pool of `PostgresStorage`: the upsert's row lock lets one process claim each. */
export function postgresSlackThreads(pool: pg.Pool): SlackThreadStore {
  const claim = claimSql({ incident: "$1", channel: "$2", at: "$3", staleBefore: "$4" });
  return {
    async get(incidentId) {
      const { rows } = await pool.query<Record<string, unknown>>(
        "SELECT incident_id, channel, ts, claimed_at FROM opspilot_slack_threads WHERE incident_id = $1",
        [incidentId],
      );
      return rows[0] ? rowOf(rows[0]) : undefined;
    },
    async claim(incidentId, channel, at, staleBefore) {
      const { rowCount } = await pool.query(claim, [incidentId, channel, at, staleBefore]);
      return rowCount === 1;
    },
    async setTs(incidentId, channel, ts) {
      await pool.query("UPDATE opspilot_slack_threads SET channel = $2, ts = $3 WHERE incident_id = $1", [
        incidentId,
        channel,
        ts,
      ]);
    },
    async release(incidentId) {
      await pool.query("DELETE FROM opspilot_slack_threads WHERE incident_id = $1 AND ts IS NULL", [incidentId]);
    },
  };
}
