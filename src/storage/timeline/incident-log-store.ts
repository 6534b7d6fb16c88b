import type { RunEvent } from "../../contracts/events.js";

/** Something that happened to an incident outside its thread: an alert delivery, or a notice sent about it. */
export interface IncidentLogEntry {
  incidentId: string;
  /** Epoch ms it happened (opspilot's clock). */
  at: number;
  kind: "delivery" | "notice";
  /** What the delivery or notice said, as JSON (the timeline reads it). */
  detail: Record<string, unknown>;
}

/** A recorded event with the time it was recorded. */
export interface TimedEvent {
  event: RunEvent;
  /** Epoch ms the event was recorded. */
  at: number;
}

/** A stored postmortem draft. */
export interface StoredPostmortem {
  incidentId: string;
  markdown: string;
  /** Epoch ms it was written. */
  writtenAt: number;
  /** `records` when assembled from the records alone, `model` when a model wrote its narrative. */
  writtenBy: "records" | "model";
}

/** What the timeline reads beside the incident's row and its thread's records; kept on the same connection. */
export interface IncidentLogStore {
  /** Appends an entry to the incident's log. */
  appendIncidentLog(entry: IncidentLogEntry): Promise<void>;
  /** The incident's log, oldest first. */
  incidentLog(incidentId: string): Promise<IncidentLogEntry[]>;
  /** Every recorded event of a thread with the time it was recorded, in order. */
  timedEvents(threadId: string): Promise<TimedEvent[]>;
  /** Keeps a postmortem draft, replacing the incident's previous one. */
  savePostmortem(postmortem: StoredPostmortem): Promise<void>;
  /** The incident's last stored postmortem draft. */
  postmortem(incidentId: string): Promise<StoredPostmortem | undefined>;
}
