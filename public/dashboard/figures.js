// The dashboard's headline figures: the summary over a window of UTC days, the same span before it
// for the trend, and one summary per day for each figure's line.
import * as api from "../lib/api.js";
import { drawSparkline } from "./charts.js";
import { dt, formatNumber } from "./i18n.js";

/** A UTC day in milliseconds. */
export const DAY_MS = 86_400_000;

/** The window of `days` whole UTC days ending today, the same span before it, and each of its days. */
function windowsOf(days, now = Date.now()) {
  const until = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  const since = until - days * DAY_MS;
  const iso = (time) => new Date(time).toISOString();
  return {
    days,
    current: { since: iso(since), until: iso(until) },
    previous: { since: iso(since - days * DAY_MS), until: iso(since) },
    perDay: Array.from({ length: days }, (_, index) => ({
      since: iso(since + index * DAY_MS),
      until: iso(since + (index + 1) * DAY_MS),
    })),
  };
}

/** The summaries of the window of `days` days, of the window before it, and of each of its days. */
export async function fetchFigures(days) {
  const windows = windowsOf(days);
  const [current, previous, ...perDay] = await Promise.all(
    [windows.current, windows.previous, ...windows.perDay].map(({ since, until }) => api.getSummary(since, until)),
  );
  return { days, current, previous, perDay };
}

// Each headline figure: its value (undefined when nothing was measured), how to show it, and its detail.
const FIGURES = {
  averageSteps: {
    value: (summary) => (summary.runs > 0 ? summary.averageSteps : undefined),
    format: (value) => formatNumber(value, 1),
    delta: (value) => formatNumber(value, 1),
    better: 0,
    detail: (summary) =>
      dt("stepsDetail", { steps: Math.round(summary.averageSteps * summary.runs), runs: summary.runs }),
  },
  toolFailureRate: {
    value: (summary) => (summary.toolCalls > 0 ? summary.toolFailureRate : undefined),
    format: (value) => `${formatNumber(value * 100, 1)}%`,
    delta: (value) => `${formatNumber(value * 100, 1)} pp`,
    better: -1,
    detail: (summary) =>
      dt("failuresDetail", {
        failures: Math.round(summary.toolFailureRate * summary.toolCalls),
        calls: summary.toolCalls,
      }),
  },
  resumeFinishRate: {
    value: (summary) => (summary.pauses.paused > 0 ? summary.pauses.resumeFinishRate : undefined),
    format: (value) => `${formatNumber(value * 100, 1)}%`,
    delta: (value) => `${formatNumber(value * 100, 1)} pp`,
    better: 1,
    detail: (summary) =>
      dt("resumeDetail", { finished: summary.pauses.resumedAndFinished, paused: summary.pauses.paused }),
  },
};

/** Draws the headline figure `article` names (`data-figure`): value, detail, trend and line. */
export function renderFigure(article, figures) {
  const figure = FIGURES[article.dataset.figure];
  const value = figure.value(figures.current);
  const before = figure.value(figures.previous);
  const valueElement = article.querySelector(".value");
  valueElement.dataset.value = value === undefined ? "" : String(value);
  valueElement.textContent = value === undefined ? dt("noData") : figure.format(value);
  article.querySelector(".detail").textContent = figure.detail(figures.current);
  const trend = article.querySelector(".trend");
  const change = value === undefined || before === undefined ? undefined : value - before;
  // Rounding noise below the shown precision reads as "no change".
  const direction = change === undefined ? "none" : Math.abs(change) < 1e-9 ? "same" : change > 0 ? "up" : "down";
  const key = { none: "trendNone", same: "trendSame", up: "trendUp", down: "trendDown" }[direction];
  trend.textContent = dt(key, {
    delta: change === undefined ? "" : figure.delta(Math.abs(change)),
    days: figures.days,
  });
  trend.dataset.direction = direction;
  trend.dataset.judgement =
    figure.better === 0 || change === undefined || direction === "same"
      ? "neutral"
      : Math.sign(change) === figure.better
        ? "better"
        : "worse";
  drawSparkline(article.querySelector("canvas"), {
    labels: figures.perDay.map((day) => day.since.slice(5, 10)),
    values: figures.perDay.map((day) => figure.value(day) ?? null),
  });
}
