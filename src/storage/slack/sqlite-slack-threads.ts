import type { StatementCache } from "../sqlite/statement-cache.js";
import { claimSql } from "./schema.js";
import type { SlackThreadRow, SlackThreadStore } from "./types.js";

/** The incidents' Slack messages in the SQLite file of `SqliteStorage`. */
export function sqliteSlackThreads(statements: StatementCache): SlackThreadStore {
  const claim = claimSql({ incident: "@incident", channel: "@channel", at: "@at", staleBefore: "@staleBefore" });
  return {
    async get(incidentId) {
      const row = statements
        .get("SELECT incident_id, channel, ts, claimed_at FROM opspilot_slack_threads WHERE incident_id = ?")
        .get(incidentId) as Record<string, unknown> | undefined;
      return row ? rowOf(row) : undefined;
    },
    async claim(incidentId, channel, at, staleBefore) {
      return statements.get(claim).run({ incident: incidentId, channel, at, staleBefore }).changes === 1;
    },
    async setTs(incidentId, channel, ts) {
      statements
        .get("UPDATE opspilot_slack_threads SET channel = ?, ts = ? WHERE incident_id = ?")
        .run(channel, ts, incidentId);
    },
    async release(incidentId) {
      statements.get("DELETE FROM opspilot_slack_threads WHERE incident_id = ? AND ts IS NULL").run(incidentId);
    },
  };
}

/** A row as both databases return it (BIGINT comes back as text from PostgreSQL). */
export function rowOf(row: Record<string, unknown>): SlackThreadRow {
  return {
    incidentId: row.incident_id as string,
    channel: row.channel as string,
    ...(typeof row.ts === "string" ? { ts: row.ts } : {}),
    claimedAt: Number(row.claimed_at),
  };
}
