import type { SilenceReconciler } from "../incidents/silence-reconciler.js";
import type { JobDefinition } from "./job.js";

/** How often incidents are reconciled with Alertmanager unless `OPSPILOT_INCIDENT_RECONCILE_INTERVAL` says otherwise. */
export const INCIDENT_RECONCILE_MS = 60_000;

/**
 * The `incident-reconcile` job: checks the firing Alertmanager incidents against Alertmanager's
 * API, at start and every `everyMs`, in one process per due time; resolves those whose silenced
 * alerts are gone (`silence-reconciler.ts`). A failed read is the engine's to log and count.
 */
export function incidentReconcileJob(
  reconciler: Pick<SilenceReconciler, "sweep">,
  everyMs = INCIDENT_RECONCILE_MS,
): JobDefinition {
  return {
    name: "incident-reconcile",
    schedule: { kind: "every", ms: everyMs, atStart: true },
    async run(signal) {
      await reconciler.sweep(signal);
    },
  };
}
