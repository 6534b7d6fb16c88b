import type { Storage } from "../../storage/types.js";
import type { AlertDelivery, DeliveryOutcome } from "./alert-delivery.js";

/**
 * Keeps one delivery in its incident's log for the timeline: what it did (opened, a changed group, a
 * redelivery, the resolution), when it arrived, and the source's own times. A group heard of as
 * resolved with no episode open has no incident to log to.
 */
export async function recordDelivery(
  storage: Pick<Storage, "incidentLog" | "incidents">,
  applied: { incidentId: string; outcome: DeliveryOutcome },
  delivery: AlertDelivery,
): Promise<void> {
  if (!(await storage.incidents.getIncident(applied.incidentId))) return;
  await storage.incidentLog.appendIncidentLog({
    incidentId: applied.incidentId,
    at: Date.now(),
    kind: "delivery",
    detail: {
      source: delivery.source,
      status: delivery.status,
      outcome: applied.outcome,
      startsAt: delivery.startsAt,
      ...(delivery.endsAt ? { endsAt: delivery.endsAt } : {}),
      ...(delivery.occurredAt ? { occurredAt: delivery.occurredAt } : {}),
      alerts: delivery.fingerprints.length,
    },
  });
}
