// The incident list: alert groups the on-call team investigates (`GET /api/incidents`), firing first.
import * as api from "../lib/api.js";
import { coalesced, h } from "../lib/dom.js";
import { t, stopReasonText } from "../lib/i18n.js";
import { threadHref, shortTime } from "./threads.js";

/** How often the list reloads while the page is visible: alerts arrive without anything on the page. */
const REFRESH_MS = 30_000;

/**
 * Draws the incidents into `list` (inside the `panel` disclosure), the firing count into `count`
 * and a failed load into `error`. The panel shows only to users who may read incidents, and only
 * when there are any: a 401 or 403 hides it without a word. The panel's `data-outcome` says how
 * the last load ended: `listed`, `refused` or `failed`.
 */
export class IncidentList {
  constructor({ list, panel, count, error, current }) {
    this.list = list;
    this.panel = panel;
    this.count = count;
    this.error = error;
    this.current = current;
    // Open beside the conversation on wide screens; one line above it on phones.
    const wide = window.matchMedia("(min-width: 64rem)");
    this.panel.open = wide.matches;
    wide.addEventListener("change", (event) => (this.panel.open = event.matches));
    // A user refused once is not asked again on the timer; signing in again (a new load) asks anew.
    this.refused = false;
    /** Whether the last load was refused for the user's role (403), as it is for viewers only. */
    this.forbidden = false;
    window.setInterval(() => {
      if (document.visibilityState === "visible" && !this.refused) void this.refresh();
    }, REFRESH_MS);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && !this.refused) void this.refresh();
    });
  }

  /** Reloads the list; calls made while one is loading share the next load. */
  refresh() {
    this.refreshOnce ??= coalesced(() => this.load());
    return this.refreshOnce();
  }

  async load() {
    let incidents;
    try {
      incidents = await api.listIncidents();
    } catch (error) {
      if (error instanceof api.ApiError && (error.status === 401 || error.status === 403)) {
        this.refused = true;
        // Only viewers are refused with a 403: the page reads the user's role from it.
        this.forbidden = error.status === 403;
        this.panel.dataset.outcome = "refused";
        this.panel.hidden = true;
        return;
      }
      // The list stays as it was, with a short line saying why it is not fresh.
      this.error.textContent = t("incidentsFailed", { message: error.message || String(error) });
      this.error.hidden = false;
      this.panel.dataset.outcome = "failed";
      this.panel.hidden = false;
      return;
    }
    this.refused = false;
    this.forbidden = false;
    this.panel.dataset.outcome = "listed";
    this.error.hidden = true;
    this.render(incidents);
  }

  render(incidents) {
    this.panel.hidden = incidents.length === 0;
    const firing = incidents.filter((incident) => incident.status === "firing").length;
    this.count.textContent = firing > 0 ? t("firingCount", { n: firing }) : "";
    this.count.hidden = firing === 0;
    const current = this.current();
    this.list.replaceChildren(...incidents.map((incident) => item(incident, incident.threadId === current)));
  }
}

/** One incident as a link to its thread: status badge and alert name, then severity, service, start and investigation. */
function item(incident, current) {
  const service = incident.labels?.service ?? incident.labels?.job;
  return h(
    "li",
    { dataset: { incidentId: incident.incidentId, status: incident.status } },
    h(
      "a",
      { href: threadHref(incident.threadId), "aria-current": current ? "page" : undefined },
      h(
        "span",
        { class: "incident-head" },
        h("span", { class: `badge ${incident.status}`, text: statusText(incident.status) }),
        h("span", { class: "thread-title incident-name", text: incident.alertname }),
      ),
      h(
        "span",
        { class: "thread-meta incident-meta" },
        incident.severity ? h("span", { class: "severity", text: incident.severity }) : null,
        service ? h("span", { class: "service", text: service }) : null,
        h("time", { datetime: incident.startsAt, text: shortTime(incident.startsAt, { withClock: true }) }),
        h("span", { class: "investigation", text: investigationText(incident.investigation) }),
        incident.resolution === "resolved_while_silenced"
          ? h("span", { class: "resolution", text: t("resolvedWhileSilenced") })
          : null,
      ),
    ),
  );
}

/** Where the incident stands, in words: firing, silenced (its alerts held by a silence) or resolved. */
function statusText(status) {
  switch (status) {
    case "silenced":
      return t("silenced");
    case "resolved":
      return t("resolved");
    default:
      return t("firing");
  }
}

/** Where the investigation stands, in words. */
function investigationText(investigation) {
  const status = investigation?.status;
  switch (status) {
    case "queued":
      return t("investigationQueued");
    case "running":
      return t("investigationRunning");
    case "interrupted":
      return t("investigationWaiting");
    case "finished":
      return investigation.stopReason === "final_answer"
        ? t("investigationAnswered")
        : stopReasonText(investigation.stopReason ?? "error");
    default:
      return String(status ?? "");
  }
}
