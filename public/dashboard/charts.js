// The dashboard's charts, drawn with Chart.js (served from node_modules at /vendor/chart.umd.js).

const STOP_REASON_COLORS = {
  final_answer: "#1d7a46",
  interrupted: "#9a5b00",
  max_steps: "#c77c02",
  timeout: "#d0a21b",
  loop_detected: "#7b4fc4",
  too_many_fails: "#b3261e",
  budget_exhausted: "#2456d6",
  cancelled: "#5f6b7a",
  error: "#6d1a15",
};
const ACCENT = "#2456d6";
const MUTED = "#5f6b7a";
const LINE = "#dde2e8";
const drawn = new Map();

function chartLibrary() {
  const Chart = window.Chart;
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.color = MUTED;
  Chart.defaults.borderColor = LINE;
  Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily;
  // Day labels stay level and thin out on a phone instead of turning sideways.
  Chart.defaults.scales.category.ticks.maxRotation = 0;
  return Chart;
}

// Each canvas holds one chart; drawing again (new window, new language) replaces it.
function draw(canvas, config) {
  drawn.get(canvas)?.destroy();
  const Chart = chartLibrary();
  drawn.set(canvas, new Chart(canvas, config));
}

/** A small line of one figure per day, without axes; days without data leave a gap. */
export function drawSparkline(canvas, { labels, values, color = ACCENT }) {
  draw(canvas, {
    type: "line",
    data: {
      labels,
      datasets: [{ data: values, borderColor: color, backgroundColor: color, borderWidth: 2, pointRadius: 2 }],
    },
    options: {
      plugins: { legend: { display: false }, tooltip: { enabled: true } },
      scales: { x: { display: false }, y: { display: false, beginAtZero: true } },
    },
  });
}

/** Ended runs per day, stacked by stop reason. */
export function drawRunsByStopReason(canvas, { days, reasonText }) {
  const reasons = [...new Set(days.flatMap((day) => Object.keys(day.stopReasons)))].sort(
    (a, b) => Object.keys(STOP_REASON_COLORS).indexOf(a) - Object.keys(STOP_REASON_COLORS).indexOf(b),
  );
  draw(canvas, {
    type: "bar",
    data: {
      labels: days.map((day) => day.day.slice(5)),
      datasets: reasons.map((reason) => ({
        label: reasonText(reason),
        data: days.map((day) => day.stopReasons[reason] ?? 0),
        backgroundColor: STOP_REASON_COLORS[reason] ?? MUTED,
      })),
    },
    options: {
      plugins: { legend: { position: "bottom", labels: { boxWidth: 12 } } },
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
    },
  });
}

/** Failures per tool, most first, as horizontal bars. */
export function drawFailingTools(canvas, { tools, label }) {
  draw(canvas, {
    type: "bar",
    data: {
      labels: tools.map((tool) => tool.tool),
      datasets: [{ label, data: tools.map((tool) => tool.failures), backgroundColor: "#b3261e" }],
    },
    options: {
      indexAxis: "y",
      plugins: { legend: { display: false } },
      scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  });
}

/** Input and output tokens per day (stacked bars) with the day's cost as a line on its own axis. */
export function drawUsage(canvas, { days, labels }) {
  draw(canvas, {
    type: "bar",
    data: {
      labels: days.map((day) => day.day.slice(5)),
      datasets: [
        {
          label: labels.input,
          data: days.map((day) => day.inputTokens),
          backgroundColor: "#8fa9ec",
          stack: "tokens",
        },
        {
          label: labels.output,
          data: days.map((day) => day.outputTokens),
          backgroundColor: ACCENT,
          stack: "tokens",
        },
        {
          type: "line",
          label: labels.cost,
          data: days.map((day) => day.costUsd),
          borderColor: "#1d7a46",
          backgroundColor: "#1d7a46",
          yAxisID: "cost",
        },
      ],
    },
    options: {
      plugins: { legend: { position: "bottom", labels: { boxWidth: 12 } } },
      scales: {
        x: { stacked: true },
        y: { stacked: true, beginAtZero: true, title: { display: true, text: labels.tokens } },
        cost: {
          position: "right",
          beginAtZero: true,
          grid: { drawOnChartArea: false },
          title: { display: true, text: labels.cost },
        },
      },
    },
  });
}
