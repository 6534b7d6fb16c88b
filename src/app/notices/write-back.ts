import type { RunEvent } from "../../contracts/events.js";
import type { DeliveryOutcome } from "../../service/incidents/incidents.js";
import type { PagerdutyIncidentNotes } from "../../service/pagerduty/incident-notes.js";
import type { SlackIncidentThreads } from "../../service/slack/bot-updates.js";

/** Where incidents are written back: Slack threads and PagerDuty notes, each on only with its settings. */
export interface WriteBack {
  /** Sees every recorded event (the runtime's `onEvent`): answers, pauses and writes of incident threads. */
  observe(event: RunEvent): void;
  /** An alert delivery opened, changed or resolved an incident (alert intake's `onDelivery`). */
  delivered(incidentId: string, outcome: DeliveryOutcome): void;
  /** The incident's postmortem draft is at `link`: Slack's thread gets it. */
  postmortem(incidentId: string, link: string): void;
  /** Resolves once every update started so far was posted or given up. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for what is under way, then abandons it (logged). */
  close(graceMs?: number): Promise<void>;
}

/** One write-back over the parts that are configured (none: it does nothing). */
export function combinedWriteBack(parts: {
  slack?: SlackIncidentThreads;
  pagerduty?: PagerdutyIncidentNotes;
}): WriteBack {
  const { slack, pagerduty } = parts;
  return {
    observe(event) {
      slack?.observe(event);
      pagerduty?.observe(event);
    },
    delivered(incidentId, outcome) {
      slack?.delivered(incidentId, outcome);
      pagerduty?.delivered(incidentId, outcome);
    },
    postmortem: (incidentId, link) => slack?.postmortem(incidentId, link),
    async idle() {
      await Promise.all([slack?.idle(), pagerduty?.idle()]);
    },
    async close(graceMs) {
      await Promise.all([slack?.close(graceMs), pagerduty?.close(graceMs)]);
    },
  };
}
