import type { IncidentRow, IncidentStore } from "../../storage/types.js";
import type { Logger } from "../observability/logger.js";
import type { WriteBackUpdate } from "../observability/write-back-failures.js";
import { answerSummary } from "../incidents/notice-body.js";
import type { RunEvent } from "../../contracts/events.js";
import { incidentIdOfThread } from "../incidents/incidents.js";
import { finalAnswerOf, isDuplicate, updateKeyOf } from "../slack/bot-events.js";
import { threadLink } from "../notices/pause-webhook-body.js";
import { retriedCall, type RetryPolicy } from "../notices/retried-call.js";
import { createWebhookDelivery, WEBHOOK_CLOSE_GRACE_MS } from "../notices/webhook-delivery.js";
import type { PagerdutyNotesClient } from "./notes-client.js";

/** The `source` of incidents PagerDuty's webhooks opened; their `groupKey` is PagerDuty's incident id. */
export const PAGERDUTY_SOURCE = "pagerduty";

/** What the notes read and where they go. */
export interface PagerdutyIncidentNotesOptions {
  client: PagerdutyNotesClient;
  storage: {
    incidents: Pick<IncidentStore, "getIncident">;
    eventsAfter(threadId: string, afterSeq: number): Promise<RunEvent[]>;
  };
  /** Base URL of the web page, for the thread link. */
  publicUrl: string;
  logger: Logger;
  /** Told of each note given up (metrics); it was logged already. */
  onFailure?(failure: { incidentId: string; note: WriteBackUpdate<"pagerduty">; error: string }): void;
  /** Attempts per note, the first included (4 by default). */
  attempts?: number;
  /** Wait before the first retry, doubled each time, in ms (1000 by default). */
  backoffMs?: number;
  /** Longest wait a 429 may ask for before the note is given up, in ms (60000 by default). */
  maxRetryAfterMs?: number;
}

/** Writes an investigation's summary and the resolution as notes on the PagerDuty incident it came from. */
export interface PagerdutyIncidentNotes {
  /** Sees every recorded event: the end of a run on a PagerDuty incident's thread becomes a note with its answer. */
  observe(event: RunEvent): void;
  /** An alert delivery resolved the incident: a note says so. */
  delivered(incidentId: string, outcome: "opened" | "follow_up" | "resolved" | "unchanged"): void;
  /** Notes given up so far. */
  failures(): number;
  idle(): Promise<void>;
  close(graceMs?: number): Promise<void>;
}

/**
 * Notes on PagerDuty incidents, in the background: the summary of each investigation that
 * ended on an incident PagerDuty opened (the answer, masked and cut as incident notices carry
 * it) and its resolution, each with the thread's link. A refusal is given up at once, a 429 or
 * 5xx tried again; every note given up is logged and counted.
 */
export function createPagerdutyIncidentNotes(options: PagerdutyIncidentNotesOptions): PagerdutyIncidentNotes {
  const policy: RetryPolicy = {
    attempts: options.attempts ?? 4,
    backoffMs: options.backoffMs ?? 1_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
  };
  const background = createWebhookDelivery({ logger: options.logger });
  const seen = new Set<string>();
  let failed = 0;

  function remember(key: string): boolean {
    if (seen.has(key)) return false;
    seen.add(key);
    // Only recent keys matter here (the recorded events cover the rest): the set stays small.
    if (seen.size > 1_000) seen.delete(seen.values().next().value!);
    return true;
  }

  async function write(incident: IncidentRow, note: WriteBackUpdate<"pagerduty">, content: string): Promise<void> {
    const written = await retriedCall(
      (signal) => options.client.addNote(incident.groupKey, content, signal),
      policy,
      background.signal,
    );
    if (written.ok) return;
    failed += 1;
    const reason = written.error;
    options.logger.error(
      `pagerduty: could not add the ${note} note to PagerDuty incident ${incident.groupKey} (incident ${incident.incidentId}): ${reason}`,
    );
    options.onFailure?.({ incidentId: incident.incidentId, note, error: reason });
  }

  function link(incident: IncidentRow): string {
    return `opspilot thread ${incident.threadId}: ${threadLink(options.publicUrl, incident.threadId)}`;
  }

  return {
    observe(event) {
      const incidentId = incidentIdOfThread(event.threadId);
      const end = event.type === "run_finished" ? updateKeyOf(event, () => false) : undefined;
      if (background.closed || !incidentId || !end || !remember(end.key)) return;
      background.run("pagerduty note failed", async () => {
        const incident = await options.storage.incidents.getIncident(incidentId);
        if (!incident || incident.source !== PAGERDUTY_SOURCE || incident.threadId !== event.threadId) return;
        const recorded = await options.storage.eventsAfter(event.threadId, 0);
        // A recovered run records its end again: one note each.
        if (isDuplicate(recorded, end.event) || end.event.type !== "run_finished") return;
        const stopped = end.event.stopReason;
        const what = stopped === "final_answer" ? "investigation" : `investigation stopped (${stopped})`;
        const answer = answerSummary(finalAnswerOf(recorded, end.event));
        await write(incident, "summary", [`opspilot ${what}:`, answer, link(incident)].join("\n\n"));
      });
    },
    delivered(incidentId, outcome) {
      if (background.closed || outcome !== "resolved") return;
      background.run("pagerduty note failed", async () => {
        const incident = await options.storage.incidents.getIncident(incidentId);
        if (!incident || incident.source !== PAGERDUTY_SOURCE) return;
        const at = incident.resolvedAt === undefined ? "" : ` at ${new Date(incident.resolvedAt).toISOString()}`;
        await write(incident, "resolution", [`opspilot: the incident was resolved${at}.`, link(incident)].join("\n\n"));
      });
    },
    failures: () => failed,
    idle: () => background.idle(),
    close: (graceMs = WEBHOOK_CLOSE_GRACE_MS) => background.close(graceMs),
  };
}
