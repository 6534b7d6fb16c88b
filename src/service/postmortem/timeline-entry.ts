import type { IncidentResolution } from "../../storage/incidents/incident-store.js";
import type { IncidentState } from "../incidents/incident-state.js";
import type { ErrorCode } from "../../contracts/observation.js";
import type { StopReason } from "../../contracts/stop-reasons.js";

/** What an alert delivery did: opened the incident, changed its group of alerts, repeated it, or resolved it. */
export type AlertHappening = "fired" | "grouped" | "redelivered" | "resolved";

/** One thing that happened to an incident, at `at` (ISO 8601, UTC), as `GET /api/incidents/:id/timeline` serves it. */
export type TimelineEntry =
  | {
      kind: "alert";
      at: string;
      what: AlertHappening;
      source: string;
      /** The source's start of the group's earliest alert. */
      startsAt: string;
      /** The source's end of a resolved group (Alertmanager's `endsAt`). */
      endsAt?: string;
      /** When the source says the event happened (PagerDuty's `occurred_at`). */
      occurredAt?: string;
      /** Firing alerts in the delivery. */
      alerts: number;
    }
  | { kind: "run_started"; at: string; runId: string; resumed: boolean; /** Who the run ran as. */ by?: string }
  | {
      kind: "step";
      at: string;
      runId: string;
      callId: string;
      tool: string;
      /** The args, masked, as one line. */
      args: string;
      ok: boolean;
      errorCode?: ErrorCode;
      /** What the call found: its result's summary. */
      found: string;
    }
  | { kind: "pause"; at: string; runId: string; interruptId: string; reason: string; calls: PausedCall[] }
  | {
      kind: "answer";
      at: string;
      callId: string;
      tool: string;
      action: string;
      /** Who answered, and with which role. */
      by: string;
      role?: string;
      message?: string;
      /** Everyone whose approval counted, for a four-eyes call. */
      approvers?: string[];
    }
  | {
      kind: "action";
      at: string;
      runId: string;
      callId: string;
      tool: string;
      args: string;
      ok: boolean;
      errorCode?: ErrorCode;
      /** What the action did, or why it did not. */
      outcome: string;
      /** How the pause it waited in was answered, and by whom. */
      decision: { action: string; by: string; approvers?: string[] };
    }
  | { kind: "conclusion"; at: string; runId: string; text: string }
  | { kind: "run_finished"; at: string; runId: string; stopReason: StopReason }
  | { kind: "notice"; at: string; channel: string; event: string; ok: boolean; summary: string; failure?: string }
  /** Its alerts were silenced (an approved silence, or Alertmanager listing them silenced). */
  | { kind: "silenced"; at: string; silenceIds: string[] }
  /** Resolved with no word from the source: its silenced alerts were found gone. */
  | { kind: "resolved"; at: string; resolution: IncidentResolution };

/** One call a pause waited for. */
export interface PausedCall {
  callId: string;
  tool: string;
}

/** When the alert's trouble lasted, by the source's own times. */
export interface ImpactWindow {
  /** The source's start of the earliest alert. */
  start: string;
  /** The end: the source's (Alertmanager's `endsAt`, PagerDuty's `occurred_at`), else when opspilot heard of it; null while firing. */
  end: string | null;
  /** Whose time `end` is. */
  endFrom: "source" | "received" | null;
}

/** An incident's timeline. */
export interface IncidentTimeline {
  incidentId: string;
  threadId: string;
  source: string;
  alertname: string;
  severity: string | null;
  labels: Record<string, string>;
  status: IncidentState;
  impact: ImpactWindow;
  /** Oldest first; entries of one time keep the order they happened in. */
  entries: TimelineEntry[];
}

/** An entry before its time is written. */
export type UntimedEntry = TimelineEntry extends infer E ? (E extends TimelineEntry ? Omit<E, "at"> : never) : never;
