import type { StopReason } from "../../contracts/stop-reasons.js";
import { noticeBody, type ChatWebhookFormat } from "../notices/chat-webhook-body.js";

/** The generic JSON notice of a scheduled run that answered or paused. */
export interface ScheduleNotice {
  type: "schedule";
  /** `answered`: the run ended; `paused`: it waits for a person. */
  event: "answered" | "paused";
  /** The schedule's name. */
  schedule: string;
  /** ISO 8601 (UTC) due time the run was for. */
  dueAt: string;
  threadId: string;
  runId: string;
  /** The web page opened on the run's thread. */
  link: string;
  /** The run's stop reason; `interrupted` for a pause. */
  stopReason: StopReason;
  /** The run's final answer, or the pause's reason and waiting calls; masked as the events are, and cut. */
  summary: string;
}

/** The notice as a few lines of text, for chat webhooks: which schedule, what happened, the summary, the link. */
export function scheduleText(notice: ScheduleNotice): string {
  const [icon, happened] =
    notice.event === "paused"
      ? ["⏸", "opspilot is waiting for a person"]
      : notice.stopReason === "final_answer"
        ? ["🕘", "opspilot answered"]
        : ["⚠", `opspilot stopped (${notice.stopReason})`];
  return [
    `${icon} Scheduled check ${notice.schedule} (due ${notice.dueAt}): ${happened}`,
    notice.summary,
    `Thread ${notice.threadId}: ${notice.link}`,
  ].join("\n");
}

/** The request body of a schedule notice in the chosen format (the incident webhook's). */
export function scheduleWebhookBody(notice: ScheduleNotice, format: "json" | ChatWebhookFormat): unknown {
  return noticeBody(notice, () => scheduleText(notice), format);
}
