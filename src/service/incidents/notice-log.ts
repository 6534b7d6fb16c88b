import type { IncidentLogStore } from "../../storage/types.js";
import type { WebhookOutcome } from "../notices/webhook-delivery.js";
import type { IncidentNotice } from "./notice-body.js";

/** One notice about an incident, as its timeline shows it: where it went, what it said, whether it arrived. */
export interface NoticeRecord {
  incidentId: string;
  /** Where it went: the webhook's format (`json`, `slack`, …), or another channel's name (`slack_thread`, `pagerduty_note`). */
  channel: string;
  /** What it announced (`paused`, `answered`, `resolved`, …). */
  event: string;
  /** The run it was about, when one. */
  runId?: string;
  /** Its one-line summary. */
  summary: string;
  ok: boolean;
  /** Why it was given up, when it was. */
  failure?: string;
}

/**
 * Logs a notice sent about an incident (or given up) for its timeline. Every channel that tells
 * people about an incident calls it once per notice, after the last attempt.
 */
export async function recordIncidentNotice(
  log: Pick<IncidentLogStore, "appendIncidentLog"> | undefined,
  record: NoticeRecord,
  at = Date.now(),
): Promise<void> {
  if (!log) return;
  const { incidentId, ...detail } = record;
  await log.appendIncidentLog({ incidentId, at, kind: "notice", detail: { ...detail } });
}

/** Logs one incident webhook notice and how its delivery ended. */
export function logNotice(
  log: Pick<IncidentLogStore, "appendIncidentLog"> | undefined,
  sent: { notice: IncidentNotice; channel: string; outcome: WebhookOutcome },
): Promise<void> {
  const { notice, channel, outcome } = sent;
  return recordIncidentNotice(log, {
    incidentId: notice.incidentId,
    channel,
    event: notice.event,
    runId: notice.runId ?? undefined,
    summary: notice.summary,
    ok: outcome.ok,
    ...(outcome.ok ? {} : { failure: outcome.failure }),
  });
}
