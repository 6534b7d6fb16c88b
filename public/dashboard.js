// The dashboard's controller: the summary over a window of UTC days, the previous window for the
// trend, and one summary per day for the three headline figures' lines.
import * as api from "./lib/api.js";
import { drawFailingTools, drawRunsByStopReason, drawUsage } from "./dashboard/charts.js";
import { DAY_MS, fetchFigures, renderFigure } from "./dashboard/figures.js";
import { applyDashboardLabels, dt, formatNumber } from "./dashboard/i18n.js";
import { h, formatDuration } from "./lib/dom.js";
import { currentLanguage, stopReasonText, toggleLanguage } from "./lib/i18n.js";

const byId = (id) => document.getElementById(id);
const ui = {
  window: byId("window"),
  language: byId("language"),
  tokenForm: byId("token-form"),
  token: byId("token"),
  notice: byId("notice"),
  range: byId("range"),
};
let shown;
let loads = 0;

function renderRange(figures) {
  const { current } = figures;
  const lastDay = new Date(Date.parse(current.until) - DAY_MS).toISOString().slice(0, 10);
  ui.range.textContent = dt("range", { since: current.since.slice(0, 10), until: lastDay, runs: current.runs });
}

function renderTools(summary) {
  const panel = byId("panel-tools");
  panel.querySelector(".latency").replaceChildren(
    h("dt", { text: dt("stepLatency") }),
    h("dd", {
      text: `${formatDuration(summary.stepLatencyMs.p50)} / ${formatDuration(summary.stepLatencyMs.p95)}`,
    }),
    h("dt", { text: dt("toolLatency") }),
    h("dd", {
      text: `${formatDuration(summary.toolLatencyMs.p50)} / ${formatDuration(summary.toolLatencyMs.p95)}`,
    }),
  );
  const tools = summary.topFailingTools;
  const chart = panel.querySelector(".chart");
  const table = panel.querySelector("table");
  chart.hidden = tools.length === 0;
  if (tools.length > 0) drawFailingTools(chart.querySelector("canvas"), { tools, label: dt("failures") });
  table.replaceChildren(
    tools.length === 0
      ? h("caption", { text: dt("noFailures") })
      : h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["tool", "calls", "failures", "failureRate", "p95"].map((key) => h("th", { scope: "col", text: dt(key) })),
          ),
        ),
    h(
      "tbody",
      {},
      tools.map((tool) =>
        h(
          "tr",
          {},
          h("th", { scope: "row", text: tool.tool }),
          h("td", { text: formatNumber(tool.calls) }),
          h("td", { text: formatNumber(tool.failures) }),
          h("td", { text: `${formatNumber(tool.failureRate * 100, 1)}%` }),
          h("td", { text: formatDuration(tool.p95Ms) }),
        ),
      ),
    ),
  );
}

function renderPauses(summary) {
  const panel = byId("panel-pauses");
  const { pauses } = summary;
  panel.querySelector(".pause-outcomes").textContent = dt("pauseOutcomes", {
    paused: pauses.paused,
    finished: pauses.resumedAndFinished,
    stopped: pauses.resumedAndStopped,
    cancelled: pauses.cancelled,
    waiting: pauses.waiting,
  });
  const locale = currentLanguage() === "zh" ? "zh-CN" : "en-US";
  const list = panel.querySelector(".waiting");
  list.replaceChildren(
    ...(summary.waitingPauses.length === 0
      ? [h("li", { class: "empty-row", text: dt("noWaiting") })]
      : summary.waitingPauses.map((pause) =>
          h(
            "li",
            {},
            // The main page opens a thread from `?thread=<id>` and shows its pending pause.
            h("a", { href: `/?thread=${encodeURIComponent(pause.threadId)}`, text: pause.threadId }),
            h("span", {
              text: dt("waitingSince", {
                tool: pause.tool,
                since: new Date(pause.since).toLocaleString(locale, { dateStyle: "short", timeStyle: "short" }),
              }),
            }),
          ),
        )),
  );
}

function renderUsage(summary) {
  const panel = byId("panel-usage");
  drawUsage(panel.querySelector("canvas"), {
    days: summary.days,
    labels: { input: dt("inputTokens"), output: dt("outputTokens"), cost: dt("cost"), tokens: dt("tokens") },
  });
}

function render(figures) {
  applyDashboardLabels();
  renderRange(figures);
  for (const article of document.querySelectorAll(".figure")) renderFigure(article, figures);
  drawRunsByStopReason(byId("panel-runs").querySelector("canvas"), {
    days: figures.current.days,
    reasonText: stopReasonText,
  });
  renderTools(figures.current);
  renderPauses(figures.current);
  renderUsage(figures.current);
  document.body.dataset.state = "ready";
}

function showNotice(text) {
  ui.notice.textContent = text ?? "";
  ui.notice.hidden = !text;
}

async function load() {
  applyDashboardLabels();
  document.body.dataset.state = "loading";
  // A window picked while another was loading wins, whichever answer arrives last.
  const ticket = ++loads;
  try {
    const figures = await fetchFigures(Number(ui.window.value));
    if (ticket !== loads) return;
    shown = figures;
    showNotice("");
    render(shown);
  } catch (error) {
    if (ticket !== loads) return;
    document.body.dataset.state = "failed";
    if (error.status === 401) {
      ui.tokenForm.hidden = false;
      ui.token.focus();
      return showNotice(dt("unauthorized"));
    }
    if (error.status === 403) return showNotice(dt("forbidden"));
    showNotice(dt("loadFailed", { message: error.message }));
  }
}

ui.window.addEventListener("change", () => void load());

ui.language.addEventListener("click", () => {
  toggleLanguage();
  if (shown) render(shown);
  else applyDashboardLabels();
});

ui.tokenForm.addEventListener("submit", (event) => {
  event.preventDefault();
  api.saveToken(ui.token.value.trim());
  ui.tokenForm.hidden = true;
  void load();
});

void load();
