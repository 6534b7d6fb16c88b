/** An incident: one alert group of one source, investigated on a thread of its own. */
export interface IncidentRow {
  incidentId: string;
  /** Where the alert came from (`alertmanager`). */
  source: string;
  /** The source's group key (Alertmanager's `groupKey`, PagerDuty's incident id): each episode of a group is one incident. */
  groupKey: string;
  /** The incident's thread, owned by the alert user. */
  threadId: string;
  status: "firing" | "resolved";
  alertname: string;
  severity?: string;
  /** The group's common labels. */
  labels: Record<string, string>;
  /** ISO 8601 start of the group's earliest alert. */
  startsAt: string;
  /** Epoch ms the group was reported resolved. */
  resolvedAt?: number;
  /** Fingerprints of the firing alerts last delivered, sorted. */
  fingerprints: string[];
  /** Epoch ms of the first delivery. */
  createdAt: number;
  /** Epoch ms its alerts were seen silenced (an approved silence, or Alertmanager's own word); absent while they fire unsilenced. */
  silencedAt?: number;
  /** The ids of the silences that hold its alerts, when known. */
  silenceIds?: string[];
  /** How it ended; absent while open, and on incidents resolved before it was kept (their source said so). */
  resolution?: IncidentResolution;
}

/** How an incident ended: its source reported it resolved, or its silenced alerts were found gone. */
export type IncidentResolution = "alert_resolved" | "resolved_while_silenced";

/** A silence seen holding an incident's alerts. */
export interface IncidentSilence {
  /** Epoch ms it was seen. */
  at: number;
  /** The silences' ids (may be empty when unknown). */
  silenceIds: string[];
}

/** A new incident with its thread's owner and first message, stored all or none. */
export interface NewIncident extends Omit<
  IncidentRow,
  "status" | "resolvedAt" | "silencedAt" | "silenceIds" | "resolution"
> {
  /** Owner of the incident's thread. */
  userId: string;
  /** The first message to run on the thread. */
  message: string;
}

/** A delivery that changed an incident: applied only when its fingerprints are still `expectedFingerprints`. */
export interface IncidentChange {
  incidentId: string;
  expectedFingerprints: string[];
  fingerprints: string[];
  status: IncidentRow["status"];
  resolvedAt?: number;
  /** How it ended, with a resolution (`alert_resolved` when omitted). */
  resolution?: IncidentResolution;
  /** The message queued for the thread with the change. */
  message: string;
  /** `run` starts a run with it; `note` only records it in the thread. */
  kind: IncidentMessage["kind"];
}

/** A message waiting to reach an incident's thread, in order. */
export interface IncidentMessage {
  incidentId: string;
  seq: number;
  threadId: string;
  kind: "run" | "note";
  message: string;
}

/** Incidents and the messages waiting for their threads. */
export interface IncidentStore {
  /** Stores the incident, its thread and its first message; when `incidentId` exists, returns that one instead. */
  openIncident(incident: NewIncident): Promise<{ incident: IncidentRow; created: boolean }>;
  /** The group's newest incident, and how many the group has had (one per episode: firing until resolved). */
  latestIncident(source: string, groupKey: string): Promise<{ incident?: IncidentRow; episodes: number }>;
  /** Applies a change to a firing incident and queues its message in one transaction; false when another delivery changed it first. */
  changeIncident(change: IncidentChange): Promise<boolean>;
  getIncident(incidentId: string): Promise<IncidentRow | undefined>;
  /** Firing incidents first, then newest first; at most `limit`. */
  listIncidents(limit: number): Promise<IncidentRow[]>;
  /**
   * Records that a firing incident's alerts are silenced (`silence`), or that they fire unsilenced
   * again (`null`); false when the incident is not firing (or unknown), and nothing changes.
   */
  setIncidentSilence(incidentId: string, silence: IncidentSilence | null): Promise<boolean>;
  /** Every message not yet delivered to its thread, oldest first. */
  pendingIncidentMessages(): Promise<IncidentMessage[]>;
  /** Marks a message delivered. */
  finishIncidentMessage(incidentId: string, seq: number): Promise<void>;
  /** Whether a webhook delivery id of `source` was remembered (and not yet pruned). */
  knowsDelivery(source: string, deliveryId: string): Promise<boolean>;
  /**
   * Remembers a webhook delivery id, received at `at` (epoch ms): true the first time, false when any
   * process remembered it before (insert-or-ignore on the primary key). Prunes ids older than
   * `DELIVERY_MEMORY_MS` on the way.
   */
  rememberDelivery(source: string, deliveryId: string, at: number): Promise<boolean>;
}

/** How long `IncidentStore.rememberDelivery` keeps a delivery id: 7 days, longer than any source's retries. */
export const DELIVERY_MEMORY_MS = 7 * 24 * 60 * 60 * 1000;
