import type { StopReason } from "../../contracts/stop-reasons.js";
import type { IncidentRow } from "../../storage/types.js";
import { noticeBody, type ChatWebhookFormat } from "../notices/chat-webhook-body.js";
import { copiedQuotes, threadLink, type PauseEvent } from "../notices/pause-webhook-body.js";

/** How the body of an incident notice is shaped: generic JSON, or a chat's text message. */
export type IncidentWebhookFormat = "json" | ChatWebhookFormat;

/** The generic JSON notice of an incident's run that answered or paused. */
export interface IncidentNotice {
  type: "incident";
  /** `answered`: a run on the incident's thread ended; `paused`: it waits for a person. */
  event: "answered" | "paused";
  incidentId: string;
  /** Where the alert came from (`alertmanager`). */
  source: string;
  alertname: string;
  severity: string | null;
  /** The incident's status when the notice was made. */
  status: IncidentRow["status"];
  threadId: string;
  runId: string;
  /** The web page opened on the incident's thread. */
  link: string;
  /** The run's stop reason; `interrupted` for a pause. */
  stopReason: StopReason;
  /** The run's final answer, or the pause's reason and waiting calls; masked as the events are, and cut. */
  summary: string;
}

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
  event: IncidentNotice["event"];
  runId: string;
  stopReason: StopReason;
  summary: string;
  /** Base URL of the web page, for the thread link. */
  publicUrl: string;
}): IncidentNotice {
  const { incident } = options;
  return {
    type: "incident",
    event: options.event,
    incidentId: incident.incidentId,
    source: incident.source,
    alertname: incident.alertname,
    severity: incident.severity ?? null,
    status: incident.status,
    threadId: incident.threadId,
    runId: options.runId,
    link: threadLink(options.publicUrl, incident.threadId),
    stopReason: options.stopReason,
    summary: options.summary,
  };
}

/** The notice as a few lines of plain text, for chat webhooks: what happened to which alert, the summary, the link. */
export function incidentText(notice: IncidentNotice): string {
  const tags = [notice.severity, notice.status].filter((tag) => tag !== null).join(", ");
  const [icon, happened] =
    notice.event === "paused"
      ? ["⏸", "opspilot is waiting for a person"]
      : notice.stopReason === "final_answer"
        ? ["✅", "opspilot answered"]
        : ["⚠", `opspilot stopped (${notice.stopReason})`];
  return [
    `${icon} ${notice.alertname} [${tags}]: ${happened}`,
    notice.summary,
    `Thread ${notice.threadId}: ${notice.link}`,
  ].join("\n");
}

/** The request body of an incident notice in the chosen format. */
export function incidentWebhookBody(notice: IncidentNotice, format: IncidentWebhookFormat): unknown {
  return noticeBody(notice, () => incidentText(notice), format);
}
