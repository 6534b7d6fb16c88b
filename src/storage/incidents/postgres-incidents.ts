import type pg from "pg";
import { inTransaction } from "../postgres/postgres-schema.js";
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

/** Appends a message after the incident's last one (the incident's row is locked by the caller's statement). */
const QUEUE_SQL = `INSERT INTO opspilot_incident_messages (incident_id, seq, kind, message, created_at)
  SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4 FROM opspilot_incident_messages WHERE incident_id = $1`;

/** The incident store on the pool of `PostgresStorage`; each change commits in one transaction. */
export function postgresIncidents(pool: pg.Pool): IncidentStore {
  return {
    openIncident: (incident) =>
      inTransaction(pool, async (client) => {
        const placeholders = Array.from({ length: 12 }, (_, index) => `$${index + 1}`).join(", ");
        const inserted = await client.query(
          `INSERT INTO opspilot_incidents (${INCIDENT_COLUMNS}) VALUES (${placeholders}) ON CONFLICT (incident_id) DO NOTHING`,
          incidentValues(incident),
        );
        const created = inserted.rowCount === 1;
        if (created) {
          await client.query("INSERT INTO opspilot_threads (thread_id, user_id, created_at) VALUES ($1, $2, $3)", [
            incident.threadId,
            incident.userId,
            incident.createdAt,
          ]);
          await client.query(QUEUE_SQL, [incident.incidentId, "run", incident.message, Date.now()]);
        }
        const { rows } = await client.query<Record<string, unknown>>(
          "SELECT * FROM opspilot_incidents WHERE incident_id = $1",
          [incident.incidentId],
        );
        return { incident: incidentFromRow(rows[0]!), created };
      }),

    changeIncident: (change) =>
      inTransaction(pool, async (client) => {
        const updated = await client.query(
          "UPDATE opspilot_incidents SET fingerprints = $1, status = $2, resolved_at = $3, resolution = $6 WHERE incident_id = $4 AND fingerprints = $5 AND status = 'firing'",
          [
            JSON.stringify(change.fingerprints),
            change.status,
            change.resolvedAt ?? null,
            change.incidentId,
            JSON.stringify(change.expectedFingerprints),
            resolutionOf(change),
          ],
        );
        if (updated.rowCount !== 1) return false;
        await client.query(QUEUE_SQL, [change.incidentId, change.kind, change.message, Date.now()]);
        return true;
      }),

    async latestIncident(source, groupKey) {
      const { rows } = await pool.query<Record<string, unknown>>(latestIncidentSql(["$1", "$2"]), [source, groupKey]);
      return rows[0] ? { incident: incidentFromRow(rows[0]), episodes: Number(rows[0].episodes) } : { episodes: 0 };
    },

    async getIncident(incidentId) {
      const { rows } = await pool.query<Record<string, unknown>>(
        "SELECT * FROM opspilot_incidents WHERE incident_id = $1",
        [incidentId],
      );
      return rows[0] ? incidentFromRow(rows[0]) : undefined;
    },

    async listIncidents(limit) {
      const { rows } = await pool.query<Record<string, unknown>>(
        `SELECT * FROM opspilot_incidents ${INCIDENT_ORDER} LIMIT $1`,
        [limit],
      );
      return rows.map(incidentFromRow);
    },

    async setIncidentSilence(incidentId, silence) {
      const updated = await pool.query(
        "UPDATE opspilot_incidents SET silenced_at = $1, silence_ids = $2 WHERE incident_id = $3 AND status = 'firing'",
        [...silenceValues(silence), incidentId],
      );
      return updated.rowCount === 1;
    },

    async pendingIncidentMessages() {
      return (await pool.query<Record<string, unknown>>(PENDING_MESSAGES_SQL)).rows.map(incidentMessageFromRow);
    },

    async finishIncidentMessage(incidentId, seq) {
      await pool.query("UPDATE opspilot_incident_messages SET delivered_at = $1 WHERE incident_id = $2 AND seq = $3", [
        Date.now(),
        incidentId,
        seq,
      ]);
    },

    async knowsDelivery(source, deliveryId) {
      const { rowCount } = await pool.query(
        "SELECT 1 FROM opspilot_webhook_deliveries WHERE source = $1 AND delivery_id = $2",
        [source, deliveryId],
      );
      return rowCount === 1;
    },

    async rememberDelivery(source, deliveryId, at) {
      await pool.query("DELETE FROM opspilot_webhook_deliveries WHERE received_at < $1", [at - DELIVERY_MEMORY_MS]);
      // The primary key decides between processes: exactly one insert of an id counts.
      const inserted = await pool.query(
        `INSERT INTO opspilot_webhook_deliveries (source, delivery_id, received_at) VALUES ($1, $2, $3)
         ON CONFLICT (source, delivery_id) DO NOTHING`,
        [source, deliveryId, at],
      );
      return inserted.rowCount === 1;
    },
  };
}
