import type { IncidentMessage, IncidentResolution, IncidentRow, NewIncident } from "./incident-store.js";

/** Columns of `opspilot_incidents`, in the order `incidentValues` gives them. */
export const INCIDENT_COLUMNS =
  "incident_id, source, group_key, thread_id, status, alertname, severity, labels, starts_at, resolved_at, fingerprints, created_at";

/** The values of a new incident's row, in `INCIDENT_COLUMNS` order. */
export function incidentValues(incident: NewIncident): unknown[] {
  return [
    incident.incidentId,
    incident.source,
    incident.groupKey,
    incident.threadId,
    "firing",
    incident.alertname,
    incident.severity ?? null,
    JSON.stringify(incident.labels),
    incident.startsAt,
    null,
    JSON.stringify(incident.fingerprints),
    incident.createdAt,
  ];
}

/** An incident from its row. */
export function incidentFromRow(row: Record<string, unknown>): IncidentRow {
  return {
    incidentId: row.incident_id as string,
    source: row.source as string,
    groupKey: row.group_key as string,
    threadId: row.thread_id as string,
    status: row.status as IncidentRow["status"],
    alertname: row.alertname as string,
    ...(row.severity === null ? {} : { severity: row.severity as string }),
    labels: JSON.parse(row.labels as string) as Record<string, string>,
    startsAt: row.starts_at as string,
    ...(row.resolved_at === null ? {} : { resolvedAt: Number(row.resolved_at) }),
    fingerprints: JSON.parse(row.fingerprints as string) as string[],
    createdAt: Number(row.created_at),
    // Rows written before these columns existed hold NULL (or lack them).
    ...(row.silenced_at === null || row.silenced_at === undefined ? {} : { silencedAt: Number(row.silenced_at) }),
    ...(typeof row.silence_ids === "string" ? { silenceIds: JSON.parse(row.silence_ids) as string[] } : {}),
    ...(typeof row.resolution === "string" ? { resolution: row.resolution as IncidentResolution } : {}),
  };
}

/** A waiting message from its row (joined with its incident's thread). */
export function incidentMessageFromRow(row: Record<string, unknown>): IncidentMessage {
  return {
    incidentId: row.incident_id as string,
    seq: Number(row.seq),
    threadId: row.thread_id as string,
    kind: row.kind as IncidentMessage["kind"],
    message: row.message as string,
  };
}

/** The columns a silence sets (`setIncidentSilence`): `silenced_at`, `silence_ids`, in that order. */
export function silenceValues(silence: { at: number; silenceIds: string[] } | null): [number | null, string | null] {
  return silence ? [silence.at, JSON.stringify([...new Set(silence.silenceIds)].sort())] : [null, null];
}

/** Firing first, then newest first. */
export const INCIDENT_ORDER = "ORDER BY (status = 'firing') DESC, created_at DESC, incident_id";

/** Waiting messages, oldest first, with their incident's thread. */
export const PENDING_MESSAGES_SQL = `SELECT m.incident_id, m.seq, m.kind, m.message, i.thread_id
  FROM opspilot_incident_messages m JOIN opspilot_incidents i ON i.incident_id = m.incident_id
  WHERE m.delivered_at IS NULL ORDER BY m.created_at, m.incident_id, m.seq`;

/** The SQL of a group's newest incident with the group's count of episodes; `$1`/`?` are source and group key. */
export function latestIncidentSql(placeholders: [string, string]): string {
  return `SELECT i.*, (SELECT COUNT(*) FROM opspilot_incidents c WHERE c.source = i.source AND c.group_key = i.group_key)
    AS episodes FROM opspilot_incidents i WHERE i.source = ${placeholders[0]} AND i.group_key = ${placeholders[1]}
    ORDER BY i.created_at DESC, i.incident_id DESC LIMIT 1`;
}

/** The `resolution` column a change writes: its own when it resolves (the source's word by default), else NULL. */
export function resolutionOf(change: { status: string; resolution?: IncidentResolution }): IncidentResolution | null {
  return change.status === "resolved" ? (change.resolution ?? "alert_resolved") : null;
}
