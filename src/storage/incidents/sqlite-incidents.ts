import type { Database } from "better-sqlite3";
import type { StatementCache } from "../sqlite/statement-cache.js";
import {
  INCIDENT_COLUMNS,
  INCIDENT_ORDER,
  incidentFromRow,
  incidentMessageFromRow,
  incidentValues,
  latestIncidentSql,
  PENDING_MESSAGES_SQL,
  resolutionOf,
  silenceValues,
} from "./incident-row.js";
import { DELIVERY_MEMORY_MS, type IncidentStore } from "../types.js";

type Row = Record<string, unknown>;

/** The incident store on the SQLite connection of `SqliteStorage`; each change commits in one transaction. */
export function sqliteIncidents(db: Database, statements: StatementCache): IncidentStore {
  const select = (incidentId: string) =>
    statements.get("SELECT * FROM opspilot_incidents WHERE incident_id = ?").get(incidentId) as Row | undefined;
  const queue = (incidentId: string, kind: string, message: string) =>
    statements
      .get(
        `INSERT INTO opspilot_incident_messages (incident_id, seq, kind, message, created_at)
         SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM opspilot_incident_messages WHERE incident_id = ?`,
      )
      .run(incidentId, kind, message, Date.now(), incidentId);

  return {
    async openIncident(incident) {
      const opened = db.transaction(() => {
        const inserted = statements
          .get(`INSERT OR IGNORE INTO opspilot_incidents (${INCIDENT_COLUMNS}) VALUES (${"?, ".repeat(11)}?)`)
          .run(...incidentValues(incident)).changes;
        if (inserted === 1) {
          statements
            .get("INSERT INTO opspilot_threads (thread_id, user_id, created_at) VALUES (?, ?, ?)")
            .run(incident.threadId, incident.userId, incident.createdAt);
          queue(incident.incidentId, "run", incident.message);
        }
        return { incident: incidentFromRow(select(incident.incidentId)!), created: inserted === 1 };
      });
      return opened.immediate();
    },

    async changeIncident(change) {
      const applied = db.transaction(() => {
        const updated = statements
          .get(
            "UPDATE opspilot_incidents SET fingerprints = ?, status = ?, resolved_at = ?, resolution = ? WHERE incident_id = ? AND fingerprints = ? AND status = 'firing'",
          )
          .run(
            JSON.stringify(change.fingerprints),
            change.status,
            change.resolvedAt ?? null,
            resolutionOf(change),
            change.incidentId,
            JSON.stringify(change.expectedFingerprints),
          ).changes;
        if (updated === 1) queue(change.incidentId, change.kind, change.message);
        return updated === 1;
      });
      return applied.immediate();
    },

    async latestIncident(source, groupKey) {
      const row = statements.get(latestIncidentSql(["?", "?"])).get(source, groupKey) as Row | undefined;
      return row ? { incident: incidentFromRow(row), episodes: Number(row.episodes) } : { episodes: 0 };
    },

    async getIncident(incidentId) {
      const row = select(incidentId);
      return row ? incidentFromRow(row) : undefined;
    },

    async listIncidents(limit) {
      const rows = statements.get(`SELECT * FROM opspilot_incidents ${INCIDENT_ORDER} LIMIT ?`).all(limit) as Row[];
      return rows.map(incidentFromRow);
    },

    async setIncidentSilence(incidentId, silence) {
      return (
        statements
          .get(
            "UPDATE opspilot_incidents SET silenced_at = ?, silence_ids = ? WHERE incident_id = ? AND status = 'firing'",
          )
          .run(...silenceValues(silence), incidentId).changes === 1
      );
    },

    async pendingIncidentMessages() {
      return (statements.get(PENDING_MESSAGES_SQL).all() as Row[]).map(incidentMessageFromRow);
    },

    async finishIncidentMessage(incidentId, seq) {
      statements
        .get("UPDATE opspilot_incident_messages SET delivered_at = ? WHERE incident_id = ? AND seq = ?")
        .run(Date.now(), incidentId, seq);
    },

    async knowsDelivery(source, deliveryId) {
      return (
        statements
          .get("SELECT 1 FROM opspilot_webhook_deliveries WHERE source = ? AND delivery_id = ?")
          .get(source, deliveryId) !== undefined
      );
    },

    async rememberDelivery(source, deliveryId, at) {
      const remembered = db.transaction(() => {
        statements.get("DELETE FROM opspilot_webhook_deliveries WHERE received_at < ?").run(at - DELIVERY_MEMORY_MS);
        return (
          statements
            .get(
              "INSERT OR IGNORE INTO opspilot_webhook_deliveries (source, delivery_id, received_at) VALUES (?, ?, ?)",
            )
            .run(source, deliveryId, at).changes === 1
        );
      });
      return remembered.immediate();
    },
  };
}
