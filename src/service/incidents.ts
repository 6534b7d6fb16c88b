import { createHash } from "node:crypto";
import type { RunUser } from "../contracts/user.js";
import type { IncidentRow, Storage } from "../storage/types.js";
import type { IncidentWorker } from "./incident-worker.js";

/** One delivery of an alert group, already parsed from its source's format. */
export interface AlertDelivery {
  source: string;
  groupKey: string;
  status: "firing" | "resolved";
  alertname: string;
  severity?: string;
  labels: Record<string, string>;
  startsAt: string;
  /** Sorted fingerprints of the firing alerts. */
  fingerprints: string[];
  /** What the thread is told: the alert on opening, what changed on a follow-up, the resolution. */
  message: string;
}

/** What a delivery did. */
export type DeliveryOutcome = "opened" | "follow_up" | "resolved" | "unchanged";

/** An incident as `GET /api/incidents` serves it. */
export interface IncidentView {
  incidentId: string;
  source: string;
  status: IncidentRow["status"];
  alertname: string;
  severity: string | null;
  labels: Record<string, string>;
  startsAt: string;
  /** ISO 8601, or null while firing. */
  resolvedAt: string | null;
  threadId: string;
  /** The thread's investigation: `queued` until its message runs, then as the thread list reports it. */
  investigation: { status: "queued" | "running" | "interrupted" | "finished"; stopReason: string | null };
}

/** The incident id of a source's group: stable, so a lookup by group needs no second key. */
export function incidentIdOf(source: string, groupKey: string): string {
  return "inc_" + createHash("sha256").update(`${source}\n${groupKey}`).digest("hex").slice(0, 24);
}

/** Opens, follows up and resolves incidents, and reads them for the API. */
export function createIncidents(options: { storage: Storage; worker: IncidentWorker; user: RunUser }) {
  const { storage, worker, user } = options;

  async function deliver(delivery: AlertDelivery): Promise<{ incidentId: string; outcome: DeliveryOutcome }> {
    const incidentId = incidentIdOf(delivery.source, delivery.groupKey);
    const outcome = await apply(incidentId, delivery);
    if (outcome !== "unchanged") void worker.kick();
    return { incidentId, outcome };
  }

  async function apply(incidentId: string, delivery: AlertDelivery): Promise<DeliveryOutcome> {
    const known = await storage.incidents.getIncident(incidentId);
    if (!known) {
      // A group first heard of as resolved has nothing to investigate.
      if (delivery.status === "resolved") return "unchanged";
      const { created } = await storage.incidents.openIncident({
        ...delivery,
        incidentId,
        threadId: `incident-${incidentId}`,
        userId: user.id,
        createdAt: Date.now(),
      });
      return created ? "opened" : "unchanged";
    }
    const resolved = delivery.status === "resolved";
    if (resolved ? known.status === "resolved" : known.status === "firing" && sameSet(known, delivery))
      return "unchanged";
    const changed = await storage.incidents.changeIncident({
      incidentId,
      expectedFingerprints: known.fingerprints,
      fingerprints: delivery.fingerprints,
      status: delivery.status,
      ...(resolved ? { resolvedAt: Date.now() } : {}),
      kind: resolved ? "note" : "run",
      message: delivery.message,
    });
    // Another delivery of the same change won the race and queued it.
    if (!changed) return "unchanged";
    return resolved ? "resolved" : "follow_up";
  }

  async function view(incident: IncidentRow, waiting: ReadonlySet<string>, threads: ThreadRows): Promise<IncidentView> {
    const runs = (await storage.threadRecords(incident.threadId)).runs;
    const last = runs.at(-1);
    const row = threads.get(incident.threadId);
    const status = row?.leased
      ? "running"
      : row?.waiting
        ? "interrupted"
        : waiting.has(incident.incidentId) || !last
          ? "queued"
          : "finished";
    return {
      incidentId: incident.incidentId,
      source: incident.source,
      status: incident.status,
      alertname: incident.alertname,
      severity: incident.severity ?? null,
      labels: incident.labels,
      startsAt: incident.startsAt,
      resolvedAt: incident.resolvedAt === undefined ? null : new Date(incident.resolvedAt).toISOString(),
      threadId: incident.threadId,
      investigation: {
        status,
        stopReason: status === "finished" ? ((last?.stop_reason as string | null) ?? null) : null,
      },
    };
  }

  /** What the views read once per request: waiting messages and the alert user's thread rows. */
  async function context(limit: number) {
    const waiting = new Set(
      (await storage.incidents.pendingIncidentMessages()).filter((m) => m.kind === "run").map((m) => m.incidentId),
    );
    const threads: ThreadRows = new Map((await storage.listThreads(user.id, limit)).map((row) => [row.threadId, row]));
    return { waiting, threads };
  }

  return {
    deliver,
    /** Firing first, then newest first; at most `limit`. */
    async list(limit: number): Promise<IncidentView[]> {
      const incidents = await storage.incidents.listIncidents(limit);
      const { waiting, threads } = await context(Math.max(limit * 4, 200));
      return Promise.all(incidents.map((incident) => view(incident, waiting, threads)));
    },
    /** One incident, or undefined. */
    async get(incidentId: string): Promise<IncidentView | undefined> {
      const incident = await storage.incidents.getIncident(incidentId);
      if (!incident) return undefined;
      const { waiting, threads } = await context(1_000);
      return view(incident, waiting, threads);
    },
  };
}

/** The incident service `createIncidents` builds. */
export type Incidents = ReturnType<typeof createIncidents>;

type ThreadRows = ReadonlyMap<string, { leased: boolean; waiting: boolean }>;

function sameSet(known: IncidentRow, delivery: AlertDelivery): boolean {
  return known.fingerprints.join("\n") === delivery.fingerprints.join("\n");
}
