import type { RunEvent } from "../../contracts/events.js";
import type { IncidentRow } from "../../storage/types.js";
import { chatWebhookBody } from "../notices/chat-webhook-body.js";
import { pauseNotice, pauseWebhookBody, threadLink, type PauseEvent } from "../notices/pause-webhook-body.js";
import { answerSummary, cutSummary, incidentNotice, incidentText } from "../incidents/notice-body.js";
import type { StopReason } from "../../contracts/stop-reasons.js";

/** A message's text and blocks, as `chat.postMessage` takes them. */
export interface SlackBotBody {
  text: string;
  blocks: unknown[];
}

/** A tool's result as the run stream recorded it (masked). */
export type ToolResultEvent = Extract<RunEvent, { type: "tool_result" }>;

/**
 * Text as a Slack message: `&`, `<` and `>` escaped, so nothing a tool returned becomes a
 * mention (`<!channel>`) or a disguised link (`<url|label>`); the same body incident notices use.
 */
function textMessage(text: string): SlackBotBody {
  return chatWebhookBody(text, "slack") as SlackBotBody;
}

/** The parent message of an incident's thread: the alert, that opspilot investigates, and the page's link. */
export function parentMessage(incident: IncidentRow, publicUrl: string): SlackBotBody {
  const tags = [incident.severity, incident.status].filter((tag) => tag !== undefined).join(", ");
  return textMessage(
    [
      `🚨 ${incident.alertname} [${tags}] from ${incident.source}: opspilot is investigating; updates follow in this thread`,
      `Incident ${incident.incidentId}, since ${incident.startsAt}`,
      `Thread ${incident.threadId}: ${threadLink(publicUrl, incident.threadId)}`,
    ].join("\n"),
  );
}

/** The reply of a run that ended: its findings (the answer, masked and cut as incident notices cut it), or why it stopped. */
export function answerMessage(options: {
  incident: IncidentRow;
  runId: string;
  stopReason: StopReason;
  answer: string;
  publicUrl: string;
}): SlackBotBody {
  const notice = incidentNotice({ ...options, event: "answered", summary: answerSummary(options.answer) });
  return textMessage(incidentText(notice));
}

/** The reply of a pause: the pause notice with its Approve and Reject buttons (the interactivity route answers them). */
export function pauseMessage(event: PauseEvent, publicUrl: string): SlackBotBody {
  return pauseWebhookBody(pauseNotice(event, publicUrl), "slack") as SlackBotBody;
}

/** The reply of a write that ran, failed or was turned down: the tool, who answered its pause, and the outcome. */
export function actionMessage(event: ToolResultEvent): SlackBotBody {
  const decision = event.decision;
  const by = decision ? ` (${decisionWords(decision.action)} ${decision.by})` : "";
  const outcome =
    event.errorCode === "rejected_by_user"
      ? `✋ ${event.tool} was not run${by}`
      : event.ok
        ? `🔧 ${event.tool} ran${by}: ok`
        : `⚠ ${event.tool} failed${by}: ${event.errorCode ?? "error"}`;
  return textMessage([outcome, cutSummary(event.summary, 500)].filter((line) => line.length > 0).join("\n"));
}

/** The reply of a resolution: when the incident was reported resolved. */
export function resolutionMessage(incident: IncidentRow, publicUrl: string): SlackBotBody {
  const at = incident.resolvedAt === undefined ? "" : ` at ${new Date(incident.resolvedAt).toISOString()}`;
  return textMessage(
    [
      `✅ ${incident.alertname} resolved${at}`,
      `Thread ${incident.threadId}: ${threadLink(publicUrl, incident.threadId)}`,
    ].join("\n"),
  );
}

/** The reply that links the incident's postmortem draft. */
export function postmortemMessage(incident: IncidentRow, link: string): SlackBotBody {
  return textMessage(`📝 Postmortem draft of ${incident.alertname} (${incident.incidentId}): ${link}`);
}

function decisionWords(action: NonNullable<ToolResultEvent["decision"]>["action"]): string {
  switch (action) {
    case "approve":
      return "approved by";
    case "edit":
      return "edited and approved by";
    case "reject":
      return "rejected by";
    case "expire":
      return "approval expired,";
    default: {
      const _exhaustive: never = action;
      return _exhaustive;
    }
  }
}
