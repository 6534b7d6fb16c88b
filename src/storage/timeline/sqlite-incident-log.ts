import type { StatementCache } from "../sqlite/statement-cache.js";
import { eventFromRow } from "../records/event-row.js";
import type { IncidentLogStore } from "./incident-log-store.js";
import { logEntryFromRow, postmortemFromRow } from "./log-rows.js";

type Row = Record<string, unknown>;

/** The incident log on the SQLite connection of `SqliteStorage`. */
export function sqliteIncidentLog(statements: StatementCache): IncidentLogStore {
  return {
    async appendIncidentLog(entry) {
      statements
        .get("INSERT INTO opspilot_incident_log (incident_id, at, kind, detail) VALUES (?, ?, ?, ?)")
        .run(entry.incidentId, entry.at, entry.kind, JSON.stringify(entry.detail));
    },

    async incidentLog(incidentId) {
      const rows = statements
        .get("SELECT * FROM opspilot_incident_log WHERE incident_id = ? ORDER BY at, rowid")
        .all(incidentId) as Row[];
      return rows.map(logEntryFromRow);
    },

    async timedEvents(threadId) {
      const rows = statements
        .get(
          "SELECT thread_id, run_id, seq, type, body, created_at FROM opspilot_events WHERE thread_id = ? ORDER BY seq",
        )
        .all(threadId) as Row[];
      return rows.map((row) => ({ event: eventFromRow(row), at: Number(row.created_at) }));
    },

    async savePostmortem(postmortem) {
      statements
        .get(
          "INSERT OR REPLACE INTO opspilot_postmortems (incident_id, markdown, written_at, written_by) VALUES (?, ?, ?, ?)",
        )
        .run(postmortem.incidentId, postmortem.markdown, postmortem.writtenAt, postmortem.writtenBy);
    },

    async postmortem(incidentId) {
      const row = statements.get("SELECT * FROM opspilot_postmortems WHERE incident_id = ?").get(incidentId) as
        Row | undefined;
      return row ? postmortemFromRow(row) : undefined;
    },
  };
}
