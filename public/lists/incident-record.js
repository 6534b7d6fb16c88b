// An incident thread's record beside its conversation: the timeline (times in UTC, the reader's
// local time beside each) and the postmortem draft, shown as Markdown and offered as a download.
import * as api from "../lib/api.js";
import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { renderMarkdown } from "../lib/markdown.js";

const INCIDENT_THREAD = /^incident-(.+)$/;

/**
 * Draws the incident record of the open thread into `root` (hidden for other threads and for users
 * the incident routes refuse). A citation in the draft (`#call-<id>`) opens that call's result in
 * the conversation, as its card's own disclosure does.
 */
export class IncidentRecord {
  constructor({ root, timeline, postmortem, download, error, log }) {
    Object.assign(this, { root, timeline, postmortem, download, error, log });
    this.postmortem.addEventListener("click", (event) => this.openCitation(event));
    this.shown = undefined;
  }

  /** Loads the record of `threadId` when it is an incident's; hides it otherwise. */
  async show(threadId) {
    const incidentId = INCIDENT_THREAD.exec(threadId ?? "")?.[1];
    if (!incidentId) {
      this.root.hidden = true;
      return;
    }
    let timeline;
    let markdown;
    try {
      [timeline, markdown] = await Promise.all([api.getTimeline(incidentId), api.getPostmortem(incidentId)]);
    } catch (error) {
      // A viewer is refused every incident route: no record, and no word about it.
      this.root.hidden = error instanceof api.ApiError && [401, 403, 404].includes(error.status);
      this.error.textContent = t("timelineFailed", { message: error.message || String(error) });
      this.error.hidden = this.root.hidden;
      this.root.dataset.outcome = "failed";
      return;
    }
    this.error.hidden = true;
    this.timeline.replaceChildren(...timeline.entries.map(entryItem));
    this.postmortem.replaceChildren(renderMarkdown(markdown));
    // Citations stay on this page: the draft's links name the public URL, the result is right here.
    for (const link of this.postmortem.querySelectorAll("a[href*='#call-']")) link.removeAttribute("target");
    if (this.download.href) URL.revokeObjectURL(this.download.href);
    this.download.href = URL.createObjectURL(new window.Blob([markdown], { type: "text/markdown" }));
    this.download.download = `postmortem-${incidentId}.md`;
    this.root.dataset.outcome = "shown";
    this.root.dataset.incidentId = incidentId;
    this.root.hidden = false;
  }

  /** Opens the cited call's card and its full result, when the conversation shows it. */
  openCitation(event) {
    const link = event.target.closest?.("a[href*='#call-']");
    if (!link) return;
    const callId = decodeURIComponent(link.getAttribute("href").split("#call-")[1] ?? "");
    const card = Array.from(this.log.querySelectorAll(".call")).find((item) => item.dataset.callId === callId);
    if (!card) return;
    event.preventDefault();
    card.scrollIntoView({ block: "center" });
    const result = card.querySelector("details.result");
    if (result) result.open = true;
    card.classList.add("cited");
  }
}

/** One entry: its UTC time (the local time in the title and beside it), then what happened. */
function entryItem(entry) {
  const date = new Date(entry.at);
  const utc = `${entry.at.slice(11, 19)} ${t("utc")}`;
  const local = date.toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  return h(
    "li",
    { dataset: { kind: entry.kind } },
    h("time", { datetime: entry.at, title: date.toString(), text: utc }),
    h("span", { class: "local-time", text: `(${local})` }),
    h("span", { class: "entry-text", text: entryText(entry) }),
  );
}

/** What an entry says, in a line. */
function entryText(entry) {
  switch (entry.kind) {
    case "alert":
      return `Alert ${entry.what} (${entry.source})${entry.endsAt ? `, ends ${entry.endsAt}` : ""}`;
    case "run_started":
      return `${entry.resumed ? "Resumed" : "Investigation started"}${entry.by ? ` as ${entry.by}` : ""}`;
    case "step":
      return `${entry.tool} ${entry.args}: ${entry.ok ? entry.found : `failed (${entry.errorCode})`}`;
    case "pause":
      return `Paused for ${entry.calls.map((call) => call.tool).join(", ")}`;
    case "answer":
      return `${entry.by}${entry.role ? ` (${entry.role})` : ""}: ${entry.action} ${entry.tool}`;
    case "action":
      return `${entry.tool} ${entry.args}: ${entry.ok ? "done" : `not done (${entry.errorCode})`}, ${entry.decision.action} by ${entry.decision.by}`;
    case "conclusion":
      return `Conclusion: ${entry.text}`;
    case "run_finished":
      return `Run ended: ${entry.stopReason}`;
    case "notice":
      return `Notice ${entry.event} via ${entry.channel}${entry.ok ? "" : ` (not delivered)`}`;
    case "silenced":
      return `Alerts silenced (${entry.silenceIds.join(", ")})`;
    case "resolved":
      return "Resolved while silenced: Alertmanager no longer listed its alerts";
    default:
      return entry.kind;
  }
}
