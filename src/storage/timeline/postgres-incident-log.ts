import type pg from "pg";
import type { RunEvent } from "../../contracts/events.js";
import type { IncidentLogStore } from "./incident-log-store.js";
import { logEntryFromRow, postmortemFromRow } from "./log-rows.js";

/** The incident log on the pool of `PostgresStorage`. */
export function postgresIncidentLog(pool: pg.Pool): IncidentLogStore {
  const rows = async (sql: string, params: unknown[]) => (await pool.query<Record<string, unknown>>(sql, params)).rows;
  return {
    async appendIncidentLog(entry) {
      await pool.query("INSERT INTO opspilot_incident_log (incident_id, at, kind, detail) VALUES ($1, $2, $3, $4)", [
        entry.incidentId,
        entry.at,
        entry.kind,
        JSON.stringify(entry.detail),
      ]);
    },

    async incidentLog(incidentId) {
      return (
        await rows("SELECT * FROM opspilot_incident_log WHERE incident_id = $1 ORDER BY at, seq", [incidentId])
      ).map(logEntryFromRow);
    },

    async timedEvents(threadId) {
      // PostgreSQL keeps each event whole in its body.
      const found = await rows("SELECT seq, body, created_at FROM opspilot_events WHERE thread_id = $1 ORDER BY seq", [
        threadId,
      ]);
      return found.map((row) => ({
        event: { ...JSON.parse(row.body as string), seq: Number(row.seq) } as RunEvent,
        at: Number(row.created_at),
      }));
    },

    async savePostmortem(postmortem) {
      await pool.query(
        `INSERT INTO opspilot_postmortems (incident_id, markdown, written_at, written_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (incident_id) DO UPDATE SET markdown = excluded.markdown, written_at = excluded.written_at,
         written_by = excluded.written_by`,
        [postmortem.incidentId, postmortem.markdown, postmortem.writtenAt, postmortem.writtenBy],
      );
    },

    async postmortem(incidentId) {
      const [row] = await rows("SELECT * FROM opspilot_postmortems WHERE incident_id = $1", [incidentId]);
      return row ? postmortemFromRow(row) : undefined;
    },
  };
}
