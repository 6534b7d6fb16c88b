import { z } from "zod";
import type { IncidentRow, IncidentStore } from "../../storage/incidents/incident-store.js";
import { alertmanagerBody } from "../../tools/toolsets/alertmanager-api.js";
import type { ToolsetClient } from "../../tools/toolsets/http-client.js";
import type { Logger } from "../observability/logger.js";
import { ListedAlertSchema, reconcile, type ListedAlert, type Reconciliation } from "./reconcile.js";
import type { IncidentWorker } from "./worker.js";

/** Most open incidents one sweep looks at (firing ones are listed first). */
const MAX_OPEN_INCIDENTS = 1_000;

const ListedAlertsSchema = z.array(ListedAlertSchema);

/** What reconciling incidents against Alertmanager reads and whom it tells. */
export interface SilenceReconcilerOptions {
  storage: {
    incidents: Pick<IncidentStore, "listIncidents" | "setIncidentSilence" | "changeIncident" | "getIncident">;
  };
  /** Alertmanager's API v2 (`toolsets.alertmanager`). */
  alertmanager: ToolsetClient;
  /** Delivers the resolution's note to the incident's thread. */
  worker: Pick<IncidentWorker, "kick">;
  /** Told of each incident this resolved, as stored then (the resolved notice); must return at once. */
  onResolved?: (incident: IncidentRow) => void;
  logger: Pick<Logger, "error">;
  now?: () => number;
}

/** What one sweep did, per decision. */
export type SweepCounts = Record<Reconciliation["kind"], number>;

/** Reconciles firing Alertmanager incidents with what Alertmanager lists: `sweep` is the `incident-reconcile` job's run. */
export interface SilenceReconciler {
  /** One pass over the open incidents; rejects when Alertmanager cannot be read (the job logs and counts it). */
  sweep(signal: AbortSignal): Promise<SweepCounts>;
}

/**
 * Alertmanager sends no resolved notice for a silenced alert (prometheus/alertmanager#226), so an
 * incident silenced from its thread would stay open after its alerts ended. Each sweep lists the
 * alerts of every firing Alertmanager incident's alert name (`GET /api/v2/alerts` with a filter,
 * resolved alerts left out by Alertmanager) and applies `reconcile`: an incident whose alerts are
 * all silenced shows silenced, one firing unsilenced again shows firing, and a silenced one whose
 * alerts are gone resolves ("resolved while silenced") with a note in its thread and a notice.
 */
export function createSilenceReconciler(options: SilenceReconcilerOptions): SilenceReconciler {
  const { storage, alertmanager, worker, logger } = options;
  const now = options.now ?? Date.now;

  async function listAlerts(alertname: string, signal: AbortSignal): Promise<ListedAlert[]> {
    const body = await alertmanagerBody(alertmanager, {
      path: "/api/v2/alerts",
      query: {
        active: "true",
        silenced: "true",
        inhibited: "true",
        unprocessed: "true",
        filter: `alertname=${JSON.stringify(alertname)}`,
      },
      signal,
    });
    const parsed = ListedAlertsSchema.safeParse(body);
    if (!parsed.success) throw new Error("Alertmanager's GET /api/v2/alerts answered with an unexpected body");
    return parsed.data;
  }

  async function resolve(incident: IncidentRow): Promise<boolean> {
    const resolved = await storage.incidents.changeIncident({
      incidentId: incident.incidentId,
      expectedFingerprints: incident.fingerprints,
      fingerprints: [],
      status: "resolved",
      resolvedAt: now(),
      resolution: "resolved_while_silenced",
      kind: "note",
      message: resolvedWhileSilencedNote(incident),
    });
    // A delivery that changed it first (a new alert, Alertmanager's own resolution) wins.
    if (!resolved) return false;
    void worker.kick();
    const row = await storage.incidents.getIncident(incident.incidentId);
    if (row) options.onResolved?.(row);
    return true;
  }

  async function apply(incident: IncidentRow, decision: Reconciliation): Promise<boolean> {
    switch (decision.kind) {
      case "unchanged":
        return false;
      case "silenced":
        return storage.incidents.setIncidentSilence(incident.incidentId, {
          at: incident.silencedAt ?? now(),
          silenceIds: decision.silenceIds,
        });
      case "firing":
        return storage.incidents.setIncidentSilence(incident.incidentId, null);
      case "resolve":
        return resolve(incident);
      default: {
        const _exhaustive: never = decision;
        return _exhaustive;
      }
    }
  }

  return {
    async sweep(signal) {
      const counts: SweepCounts = { unchanged: 0, silenced: 0, firing: 0, resolve: 0 };
      const open = (await storage.incidents.listIncidents(MAX_OPEN_INCIDENTS)).filter(
        (incident) => incident.status === "firing" && incident.source === "alertmanager",
      );
      const names = [...new Set(open.map((incident) => incident.alertname))];
      for (const alertname of names) {
        signal.throwIfAborted();
        const listed = await listAlerts(alertname, signal);
        for (const incident of open.filter((candidate) => candidate.alertname === alertname)) {
          const decision = reconcile(incident, listed);
          const applied = await apply(incident, decision).catch((error: unknown) => {
            logger.error(`incident ${incident.incidentId} could not be reconciled with Alertmanager`, error);
            return false;
          });
          counts[applied ? decision.kind : "unchanged"] += 1;
        }
      }
      return counts;
    },
  };
}

/** The note a resolution while silenced leaves in the incident's thread. */
export function resolvedWhileSilencedNote(incident: Pick<IncidentRow, "alertname" | "silenceIds">): string {
  const silences = incident.silenceIds?.length ? ` (silence ${incident.silenceIds.join(", ")})` : "";
  return (
    `${incident.alertname} resolved while silenced${silences}: Alertmanager no longer lists any of its alerts. ` +
    "Alertmanager sends no resolved notice for a silenced alert, so opspilot checked its API."
  );
}
