import type { RunEvent } from "../../contracts/events.js";
import type { EvalReport, ReportScenario, ScenarioRun } from "./report.js";

/** Longest observation or answer text shown in the HTML report; the rest is cut with a note. */
const MAX_TEXT = 6000;

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2230;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #d9dde5;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f6}.pass{color:#17703a}.fail{color:#b3261e;font-weight:600}
details{background:#fff;border:1px solid #d9dde5;border-radius:6px;margin:8px 0;padding:6px 10px}
summary{cursor:pointer;font-weight:600}pre{white-space:pre-wrap;word-break:break-word;background:#f3f5f8;padding:6px 8px;margin:4px 0;max-height:360px;overflow:auto}
.event{border-left:3px solid #9aa5b8;padding-left:8px;margin:6px 0}.event.result-fail{border-color:#b3261e}.event.pause{border-color:#c77700}
.muted{color:#5d6678}.score{font-variant-numeric:tabular-nums}
`;

/** Escapes text for HTML content and attribute values; observations may carry hostile text. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * The self-contained HTML report: inline CSS, no script, no outside request (its CSP forbids
 * both), every text escaped; the summary, the comparison, and each scenario's trace (steps,
 * calls, observations, answer) with its failed checks first.
 */
export function renderHtmlReport(report: EvalReport, runs: ReadonlyMap<string, readonly ScenarioRun[]>): string {
  const e = escapeHtml;
  const { summary } = report;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>opspilot eval: ${e(report.model)}</title><style>${STYLE}</style></head>
<body>
<h1>opspilot eval: ${e(report.model)}</h1>
<p class="muted">Started ${e(report.startedAt)} · ${summary.passed} of ${summary.total} scenarios passed · score <b class="score">${summary.score.toFixed(3)}</b></p>
${compareSection(report)}
<h2>Scenarios</h2>
<table><thead><tr><th>Scenario</th><th>Score</th><th>Steps</th><th>Tokens</th><th>Cost (USD)</th><th>Failed checks</th></tr></thead><tbody>
${report.scenarios.map(scenarioRow).join("\n")}
</tbody></table>
<h2>Traces</h2>
${report.scenarios.map((scenario) => scenarioSection(scenario, runs.get(scenario.id) ?? [])).join("\n")}
</body></html>
`;
}

function compareSection(report: EvalReport): string {
  const compare = report.compare;
  if (!compare) return "";
  const e = escapeHtml;
  const rows = (title: string, changes: NonNullable<EvalReport["compare"]>["worse"]) =>
    changes.length === 0
      ? `<p>${title}: none.</p>`
      : `<p>${title}:</p><table><thead><tr><th>Scenario</th><th>Before</th><th>After</th><th>Δ</th></tr></thead><tbody>${changes
          .map(
            (change) =>
              `<tr><td>${e(change.id)}</td><td>${change.before.toFixed(3)}</td><td>${change.after.toFixed(
                3,
              )}</td><td>${change.delta > 0 ? "+" : ""}${change.delta.toFixed(3)}</td></tr>`,
          )
          .join("")}</tbody></table>`;
  return `<h2>Compared with ${e(compare.against)}</h2>
<p class="muted">Earlier model ${e(compare.model)}, score ${compare.scoreBefore.toFixed(3)} → ${report.summary.score.toFixed(3)}</p>
${rows("Worse", compare.worse)}${rows("Better", compare.better)}
${compare.added.length ? `<p>New: ${e(compare.added.join(", "))}</p>` : ""}${
    compare.removed.length ? `<p>Not run now: ${e(compare.removed.join(", "))}</p>` : ""
  }`;
}

function scenarioRow(scenario: ReportScenario): string {
  const e = escapeHtml;
  const failed = scenario.checks.filter((check) => !check.passed);
  return `<tr><td><a href="#s-${e(scenario.id)}">${e(scenario.id)}</a></td><td class="score ${scenario.passed ? "pass" : "fail"}">${scenario.score.toFixed(
    3,
  )}</td><td>${scenario.steps}</td><td>${scenario.tokens}</td><td>${scenario.costUsd.toFixed(4)}</td><td>${failed
    .map((check) => `<b>${e(check.name)}</b>: ${e(check.detail)}`)
    .join("<br>")}</td></tr>`;
}

function scenarioSection(scenario: ReportScenario, runs: readonly ScenarioRun[]): string {
  const e = escapeHtml;
  const checks = [...scenario.checks].sort((a, b) => Number(a.passed) - Number(b.passed));
  return `<details id="s-${e(scenario.id)}"${scenario.passed ? "" : " open"}>
<summary><span class="${scenario.passed ? "pass" : "fail"}">${scenario.passed ? "PASS" : "FAIL"}</span> ${e(scenario.id)} · ${scenario.score.toFixed(3)}${
    scenario.title ? ` · <span class="muted">${e(scenario.title)}</span>` : ""
  }</summary>
<ul>${checks.map((check) => `<li class="${check.passed ? "pass" : "fail"}">${e(check.name)}: ${e(check.detail)}</li>`).join("")}</ul>
${runs.map((run, index) => runSection(run, index, runs.length)).join("\n")}
</details>`;
}

function runSection(run: ScenarioRun, index: number, count: number): string {
  const e = escapeHtml;
  const { trace } = run;
  const observations = new Map(
    trace.messages.flatMap((message) => (message.role === "tool" ? [[message.callId, message.content] as const] : [])),
  );
  return `${count > 1 ? `<h3>Run ${index + 1} of ${count} · ${run.score.toFixed(3)}</h3>` : ""}
<p><b>Question</b></p><pre>${e(trace.question)}</pre>
${trace.events.map((event) => eventBlock(event, observations)).join("\n")}
<p><b>Answer</b> <span class="muted">(${e(trace.stopReason)}, ${trace.steps} steps, ${trace.tokens} tokens, ${trace.latencyMs} ms)</span></p>
<pre>${e(clip(trace.answer || "(no answer)"))}</pre>
${trace.error ? `<p class="fail">${e(trace.error)}</p>` : ""}`;
}

function eventBlock(event: RunEvent, observations: ReadonlyMap<string, string>): string {
  const e = escapeHtml;
  switch (event.type) {
    case "tool_call":
      return `<div class="event">${event.model ? `<span class="muted">step ${event.model.step}</span> ` : ""}call <b>${e(event.tool)}</b> <span class="muted">${e(
        event.callId,
      )}</span><pre>${e(JSON.stringify(event.args))}</pre></div>`;
    case "tool_result":
      return `<div class="event${event.ok ? "" : " result-fail"}">result of <b>${e(event.tool)}</b>: ${
        event.ok ? "ok" : e(event.errorCode ?? "failed")
      } · ${e(event.summary)}<pre>${e(clip(observations.get(event.callId) ?? ""))}</pre></div>`;
    case "loop_interrupt":
      return `<div class="event pause">pause <b>${e(event.interruptType)}</b>: ${e(event.reason)}</div>`;
    case "assistant_message":
      return `<div class="event">${event.model ? `<span class="muted">step ${event.model.step}</span> ` : ""}assistant<pre>${e(clip(event.content))}</pre></div>`;
    case "run_started":
      return `<div class="event muted">run ${event.resumed ? "resumed" : "started"}</div>`;
    case "run_finished":
      return `<div class="event muted">run finished: ${e(event.stopReason)} after ${event.steps} steps</div>`;
    default: {
      const _exhaustive: never = event;
      return String(_exhaustive);
    }
  }
}

function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}\n… (${text.length - MAX_TEXT} more characters)`;
}
