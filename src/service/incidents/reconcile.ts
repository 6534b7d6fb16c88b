import { z } from "zod";
import type { IncidentRow } from "../../storage/incidents/incident-store.js";

/** An alert as Alertmanager's API v2 lists it (`GET /api/v2/alerts`), the fields reconciliation reads. */
export const ListedAlertSchema = z.object({
  fingerprint: z.string().describe("The alert's label fingerprint, as the webhook sent it."),
  status: z.object({
    state: z.string().describe("`active`, `suppressed` (silenced or inhibited) or `unprocessed`."),
    silencedBy: z.array(z.string()).default([]).describe("The silences that hold it."),
    inhibitedBy: z.array(z.string()).default([]).describe("The alerts that inhibit it."),
  }),
});

/** A listed alert. */
export type ListedAlert = z.infer<typeof ListedAlertSchema>;

/** What reconciling one firing incident against Alertmanager decided. */
export type Reconciliation =
  /** Nothing to change. */
  | { kind: "unchanged" }
  /** Every alert of the incident is held by a silence: it shows silenced, with these silences. */
  | { kind: "silenced"; silenceIds: string[] }
  /** It was silenced, and an alert of it fires unsilenced again (the silence ended or never held it). */
  | { kind: "firing" }
  /** It was silenced, and Alertmanager no longer lists any of its alerts: resolved while silenced. */
  | { kind: "resolve" };

/**
 * Decides a firing incident's state from the alerts Alertmanager lists now (resolved ones are not
 * listed). Its alerts are those whose fingerprints it holds. Alertmanager sends no resolved notice
 * for a silenced alert (prometheus/alertmanager#226), so a silenced incident whose alerts are all
 * gone is resolved here; one never silenced waits for Alertmanager's own notice.
 */
export function reconcile(
  incident: Pick<IncidentRow, "fingerprints" | "silencedAt" | "silenceIds">,
  listed: readonly ListedAlert[],
): Reconciliation {
  const silenced = incident.silencedAt !== undefined;
  const fingerprints = new Set(incident.fingerprints);
  const alerts = listed.filter((alert) => fingerprints.has(alert.fingerprint));
  if (alerts.length === 0) return silenced ? { kind: "resolve" } : { kind: "unchanged" };
  if (!alerts.every((alert) => alert.status.silencedBy.length > 0))
    return silenced ? { kind: "firing" } : { kind: "unchanged" };
  const silenceIds = [...new Set(alerts.flatMap((alert) => alert.status.silencedBy))].sort();
  const known = [...(incident.silenceIds ?? [])].sort();
  if (silenced && known.join("\n") === silenceIds.join("\n")) return { kind: "unchanged" };
  return { kind: "silenced", silenceIds };
}
