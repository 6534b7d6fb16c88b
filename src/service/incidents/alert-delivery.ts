import { MAX_MESSAGE_CHARS } from "../../contracts/limits.js";

/** One delivery of an alert group, already parsed from its source's format. */
export interface AlertDelivery {
  source: string;
  groupKey: string;
  status: "firing" | "resolved";
  alertname: string;
  severity?: string;
  labels: Record<string, string>;
  startsAt: string;
  /** ISO 8601 end the source gives a resolved group (Alertmanager's latest `endsAt`), for the timeline. */
  endsAt?: string;
  /** ISO 8601 time the source says this delivery's event happened (PagerDuty's `occurred_at`), for the timeline. */
  occurredAt?: string;
  /** Sorted fingerprints of the firing alerts. */
  fingerprints: string[];
  /** What the thread is told: the alert on opening, what changed on a follow-up, the resolution. */
  message: string;
}

/** What a delivery did. */
export type DeliveryOutcome = "opened" | "follow_up" | "resolved" | "unchanged";

/** An incident message within the length a run accepts: cut, with `[message cut]` after `joiner`, when longer. */
export function fitMessage(text: string, joiner: "\n" | " " = "\n"): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 20)}${joiner}[message cut]`;
}
