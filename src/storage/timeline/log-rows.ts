import type { IncidentLogEntry, StoredPostmortem } from "./incident-log-store.js";

/** An incident log entry from its row. */
export function logEntryFromRow(row: Record<string, unknown>): IncidentLogEntry {
  return {
    incidentId: row.incident_id as string,
    at: Number(row.at),
    kind: row.kind as IncidentLogEntry["kind"],
    detail: JSON.parse(row.detail as string) as Record<string, unknown>,
  };
}

/** A stored postmortem from its row. */
export function postmortemFromRow(row: Record<string, unknown>): StoredPostmortem {
  return {
    incidentId: row.incident_id as string,
    markdown: row.markdown as string,
    writtenAt: Number(row.written_at),
    writtenBy: row.written_by as StoredPostmortem["writtenBy"],
  };
}
