import { createHash } from "node:crypto";
import type { RunUser } from "../../contracts/user.js";
import type { IncidentRow, Storage } from "../../storage/types.js";
import { firstMessage, type IncidentBriefing } from "./briefing.js";
import type { IncidentWorker } from "./worker.js";
import { recordDelivery } from "./delivery-log.js";
import type { AlertDelivery, DeliveryOutcome } from "./alert-delivery.js";
import { incidentState, resolutionOf, type IncidentState } from "./incident-state.js";
import type { IncidentResolution } from "../../storage/incidents/incident-store.js";

export type { AlertDelivery, DeliveryOutcome } from "./alert-delivery.js";

/** An incident as `GET /api/incidents` serves it. */
export interface IncidentView {
  incidentId: string;
  source: string;
  /** `firing`; `silenced` while its alerts are seen silenced; `resolved` once ended. */
  status: IncidentState;
  alertname: string;
  severity: string | null;
  labels: Record<string, string>;
  startsAt: string;
  /** ISO 8601 of when its alerts were seen silenced (kept once resolved), or null. */
  silencedAt: string | null;
  /** The silences seen holding its alerts (empty when none or unknown). */
  silenceIds: string[];
  /** ISO 8601, or null while open. */
  resolvedAt: string | null;
  /** How it ended: `alert_resolved` (its source said so) or `resolved_while_silenced`; null while open. */
  resolution: IncidentResolution | null;
  threadId: string;
  /** The thread's investigation: `queued` until its message runs, then as the thread list reports it. */
  investigation: { status: "queued" | "running" | "interrupted" | "finished"; stopReason: string | null };
}

/**
 * The incident id of one episode of a source's group (the first is 1): stable, so processes that
 * open the same episode at once agree on its id and the store keeps one.
 */
export function incidentIdOf(source: string, groupKey: string, episode = 1): string {
  const key = episode === 1 ? `${source}\n${groupKey}` : `${source}\n${groupKey}\n${episode}`;
  return "inc_" + createHash("sha256").update(key).digest("hex").slice(0, 24);
}

/**
 * The incident id a thread id names by the convention `apply` opens threads with
 * (`incident-<incidentId>`), or undefined for any other thread. Only a name: the incident's
 * row (its `threadId`) says whether the thread really is that incident's.
 */
export function incidentIdOfThread(threadId: string): string | undefined {
  const prefix = "incident-";
  return threadId.startsWith(prefix) && threadId.length > prefix.length ? threadId.slice(prefix.length) : undefined;
}

/** Opens, follows up and resolves incidents, and reads them for the API. */
export function createIncidents(options: {
  storage: Storage;
  /** Told to deliver what a change queued (the incident worker). */
  worker: Pick<IncidentWorker, "kick">;
  user: RunUser;
  /** Sections put after the alert in a new incident's first message (its runbooks, past incidents like it). */
  briefing?: IncidentBriefing;
  /** Told what each delivery did (write-back: the Slack thread's parent, the resolution); must return at once. */
  onDelivery?: (incidentId: string, outcome: DeliveryOutcome) => void;
  /** Told of each incident a delivery resolved, as stored then (the resolved notice); must return at once. */
  onResolved?: (incident: IncidentRow) => void;
}) {
  const { storage, worker, user } = options;

  /** The first message of a new incident: a briefing that fails leaves the alert's own text. */
  async function opening(incidentId: string, delivery: AlertDelivery): Promise<string> {
    if (!options.briefing) return delivery.message;
    const sections = await Promise.resolve(options.briefing({ incidentId, ...delivery })).catch(() => []);
    return firstMessage(delivery.message, sections);
  }

  async function deliver(delivery: AlertDelivery): Promise<{ incidentId: string; outcome: DeliveryOutcome }> {
    const applied = await apply(delivery);
    if (applied.outcome !== "unchanged") void worker.kick();
    await recordDelivery(storage, applied, delivery);
    options.onDelivery?.(applied.incidentId, applied.outcome);
    if (applied.outcome === "resolved" && options.onResolved) {
      const incident = await storage.incidents.getIncident(applied.incidentId);
      if (incident) options.onResolved(incident);
    }
    return applied;
  }

  /**
   * A group's episode runs from its first firing delivery until it is resolved: within it, a
   * changed set of alerts is a follow-up and `resolved` ends it; a firing delivery after that
   * opens the next episode, a new incident with its own thread.
   */
  async function apply(delivery: AlertDelivery): Promise<{ incidentId: string; outcome: DeliveryOutcome }> {
    const { incident: known, episodes } = await storage.incidents.latestIncident(delivery.source, delivery.groupKey);
    const resolved = delivery.status === "resolved";
    if (!known || known.status === "resolved") {
      // A group heard of as resolved, with no episode open, has nothing to investigate.
      if (resolved)
        return {
          incidentId: known?.incidentId ?? incidentIdOf(delivery.source, delivery.groupKey),
          outcome: "unchanged",
        };
      const incidentId = incidentIdOf(delivery.source, delivery.groupKey, episodes + 1);
      const { created } = await storage.incidents.openIncident({
        ...delivery,
        message: await opening(incidentId, delivery),
        incidentId,
        threadId: `incident-${incidentId}`,
        userId: user.id,
        createdAt: Date.now(),
      });
      return { incidentId, outcome: created ? "opened" : "unchanged" };
    }
    const incidentId = known.incidentId;
    if (!resolved && sameSet(known, delivery)) return { incidentId, outcome: "unchanged" };
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
    if (!changed) return { incidentId, outcome: "unchanged" };
    return { incidentId, outcome: resolved ? "resolved" : "follow_up" };
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
      status: incidentState(incident),
      alertname: incident.alertname,
      severity: incident.severity ?? null,
      labels: incident.labels,
      startsAt: incident.startsAt,
      silencedAt: incident.silencedAt === undefined ? null : new Date(incident.silencedAt).toISOString(),
      silenceIds: incident.silenceIds ?? [],
      resolvedAt: incident.resolvedAt === undefined ? null : new Date(incident.resolvedAt).toISOString(),
      resolution: resolutionOf(incident),
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
    /** The id of a group's newest incident, or of its first episode when it has none. */
    async latestIncidentId(source: string, groupKey: string): Promise<string> {
      return (
        (await storage.incidents.latestIncident(source, groupKey)).incident?.incidentId ??
        incidentIdOf(source, groupKey)
      );
    },
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
