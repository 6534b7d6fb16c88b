import type { IncidentResolution, IncidentRow } from "../../storage/incidents/incident-store.js";

/** Where an incident stands, as the page, `GET /api/incidents` and the notices say it. */
export type IncidentState = "firing" | "silenced" | "resolved";

/** Firing until resolved; silenced while its alerts are seen silenced. */
export function incidentState(incident: Pick<IncidentRow, "status" | "silencedAt">): IncidentState {
  if (incident.status === "resolved") return "resolved";
  return incident.silencedAt === undefined ? "firing" : "silenced";
}

/** How a resolved incident ended (rows resolved before it was kept: their source said so); null while open. */
export function resolutionOf(incident: Pick<IncidentRow, "status" | "resolution">): IncidentResolution | null {
  return incident.status === "resolved" ? (incident.resolution ?? "alert_resolved") : null;
}

/** How an incident ended, in a few words: "resolved while silenced", or "resolved" when its source said so. */
export function resolutionWords(resolution: IncidentResolution): string {
  switch (resolution) {
    case "alert_resolved":
      return "resolved";
    case "resolved_while_silenced":
      return "resolved while silenced";
    default: {
      const _exhaustive: never = resolution;
      return _exhaustive;
    }
  }
}
