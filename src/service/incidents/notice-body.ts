import type { StopReason } from "../../contracts/stop-reasons.js";
import type { IncidentResolution, IncidentRow } from "../../storage/incidents/incident-store.js";
import { incidentState, resolutionOf, resolutionWords, type IncidentState } from "./incident-state.js";
import { noticeBody, type ChatWebhookFormat } from "../notices/chat-webhook-body.js";
import { copiedQuotes, threadLink, type PauseEvent } from "../notices/pause-webhook-body.js";

/** How the body of an incident notice is shaped: generic JSON, or a chat's text message. */
export type IncidentWebhookFormat = "json" | ChatWebhookFormat;

/** What every incident notice carries: the incident, where it stands, its thread and a summary. */
interface IncidentNoticeBase {
  type: "incident";
  incidentId: string;
  /** Where the alert came from (`alertmanager`). */
  source: string;
  alertname: string;
  severity: string | null;
  /** Where the incident stood when the notice was made: `firing`, `silenced` or `resolved`. */
  status: IncidentState;
  threadId: string;
  /** The web page opened on the incident's thread. */
  link: string;
}

/** The generic JSON notice of an incident's run that answered or paused. */
export interface IncidentRunNotice extends IncidentNoticeBase {
  /** `answered`: a run on the incident's thread ended; `paused`: it waits for a person. */
  event: "answered" | "paused";
  runId: string;
  /** The run's stop reason; `interrupted` for a pause. */
  stopReason: StopReason;
  /** The run's final answer, or the pause's reason and waiting calls; masked as the events are, and cut. */
  summary: string;
}

/** The generic JSON notice of an incident that ended. */
export interface IncidentResolvedNotice extends IncidentNoticeBase {
  event: "resolved";
  /** No run ends an incident: always null. */
  runId: null;
  /** No run ends an incident: always null. */
  stopReason: null;
  /** How it ended: its source said so, or its silenced alerts were found gone. */
  resolution: IncidentResolution;
  /** ISO 8601. */
  resolvedAt: string;
  /** How it ended, in a sentence. */
  summary: string;
  /** The incident's postmortem draft (Markdown, `GET /api/incidents/:id/postmortem`). */
  postmortem: string;
}

/** An incident notice, told apart by `event`. */
export type IncidentNotice = IncidentRunNotice | IncidentResolvedNotice;

/** Longest summary a notice carries, in characters (an ellipsis marks a cut). */
export const INCIDENT_SUMMARY_MAX_CHARS = 1_500;

/** `text` trimmed and cut to `maxChars` characters (code points, never half a pair), ending in "…" when cut. */
export function cutSummary(text: string, maxChars = INCIDENT_SUMMARY_MAX_CHARS): string {
  const trimmed = text.trim();
  const characters = Array.from(trimmed);
  if (characters.length <= maxChars) return trimmed;
  return (
    characters
      .slice(0, maxChars - 1)
      .join("")
      .trimEnd() + "…"
  );
}

/** What a pause waits for: its reason, then each waiting tool with its args as the events show them (masked), and what an egress call copied. */
export function pauseSummary(event: PauseEvent): string {
  return cutSummary(
    [
      event.reason,
      ...event.calls.flatMap((call) => [`• ${call.tool} ${JSON.stringify(call.args)}`, ...copiedQuotes(call)]),
    ].join("\n"),
  );
}

/** A run's final answer as a summary; says so when the run left no text. */
export function answerSummary(answer: string): string {
  return answer.trim().length > 0 ? cutSummary(answer) : "(the run ended without an answer)";
}

/** The generic notice of a run on `incident`'s thread. */
export function incidentNotice(options: {
  incident: IncidentRow;
  event: IncidentRunNotice["event"];
  runId: string;
  stopReason: StopReason;
  summary: string;
  /** Base URL of the web page, for the thread link. */
  publicUrl: string;
}): IncidentRunNotice {
  return {
    ...noticeBase(options.incident, options.publicUrl),
    event: options.event,
    runId: options.runId,
    stopReason: options.stopReason,
    summary: options.summary,
  };
}

/** The notice of a resolved incident: how it ended and when (an incident not resolved is a `TypeError`). */
export function resolvedNotice(incident: IncidentRow, publicUrl: string): IncidentResolvedNotice {
  const resolution = resolutionOf(incident);
  if (resolution === null || incident.resolvedAt === undefined)
    throw new TypeError(`incident ${incident.incidentId} is not resolved`);
  return {
    ...noticeBase(incident, publicUrl),
    event: "resolved",
    runId: null,
    stopReason: null,
    resolution,
    resolvedAt: new Date(incident.resolvedAt).toISOString(),
    summary: resolvedSummary(incident, resolution),
    postmortem: `${publicUrl.replace(/\/?$/, "/")}api/incidents/${encodeURIComponent(incident.incidentId)}/postmortem`,
  };
}

function noticeBase(incident: IncidentRow, publicUrl: string): IncidentNoticeBase {
  return {
    type: "incident",
    incidentId: incident.incidentId,
    source: incident.source,
    alertname: incident.alertname,
    severity: incident.severity ?? null,
    status: incidentState(incident),
    threadId: incident.threadId,
    link: threadLink(publicUrl, incident.threadId),
  };
}

/** How the incident ended, in a sentence. */
function resolvedSummary(incident: IncidentRow, resolution: IncidentResolution): string {
  switch (resolution) {
    case "alert_resolved":
      // A scheduled check's finding (source `schedule`, the schedule's name as its group) ends when a later run finds nothing.
      return incident.source === "schedule"
        ? `${incident.alertname} resolved: the next run of the scheduled check ${incident.groupKey} answered without a finding.`
        : `${incident.alertname} resolved: ${incident.source} reports every alert of the group ended.`;
    case "resolved_while_silenced": {
      const silences = incident.silenceIds?.length ? ` (silence ${incident.silenceIds.join(", ")})` : "";
      return `${incident.alertname} resolved while silenced${silences}: Alertmanager no longer reports its alerts.`;
    }
    default: {
      const _exhaustive: never = resolution;
      return _exhaustive;
    }
  }
}

/** The notice as a few lines of plain text, for chat webhooks: what happened to which alert, the summary, the link. */
export function incidentText(notice: IncidentNotice): string {
  const tags = [notice.severity, notice.status].filter((tag) => tag !== null).join(", ");
  const [icon, happened] =
    notice.event === "resolved"
      ? ["🟢", resolutionWords(notice.resolution)]
      : notice.event === "paused"
        ? ["⏸", "opspilot is waiting for a person"]
        : notice.stopReason === "final_answer"
          ? ["✅", "opspilot answered"]
          : ["⚠", `opspilot stopped (${notice.stopReason})`];
  return [
    `${icon} ${notice.alertname} [${tags}]: ${happened}`,
    notice.summary,
    `Thread ${notice.threadId}: ${notice.link}`,
    ...(notice.event === "resolved" ? [`Postmortem draft: ${notice.postmortem}`] : []),
  ].join("\n");
}

/** The request body of an incident notice in the chosen format. */
export function incidentWebhookBody(notice: IncidentNotice, format: IncidentWebhookFormat): unknown {
  return noticeBody(notice, () => incidentText(notice), format);
}
