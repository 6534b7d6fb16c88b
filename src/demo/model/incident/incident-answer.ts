import type { AlertFacts } from "./alert-text.js";
import { logsOf, relevantRunbooks, runbooksOf, serviceOf } from "../data.js";
import { docsLines, logLines } from "../evidence-lines.js";
import { incidentPhrases, type IncidentPhrases, type SeriesReading } from "./incident-phrases.js";
import { silenceProblem } from "./incident-plan.js";
import type { Intent } from "../intent.js";
import { metricsLines } from "../metrics-answer.js";
import type { Phrases } from "../phrases.js";
import { splitComparison } from "../promql.js";
import { lastObservation, type Turn, type TurnCall } from "../turn.js";

/** Series quoted per query; the others are counted. */
const SHOWN_SERIES = 3;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** What a `prometheus_query` observation holds: its series as `labels = value`, or undefined when it was cut. */
function seriesReading(data: unknown): SeriesReading | undefined {
  const rows = record(data).rows;
  if (!Array.isArray(rows)) return undefined;
  const pairs = rows.filter((row): row is [unknown, unknown] => Array.isArray(row) && row.length === 2);
  const counted = record(data).seriesCount;
  const total = typeof counted === "number" ? Math.max(counted, pairs.length) : pairs.length;
  const shown = pairs.slice(0, SHOWN_SERIES).map(([series, value]) => `${String(series)} = ${String(value)}`);
  return { shown, more: total - shown.length };
}

/** Whether the rule's own query returned series now: it still holds; undefined when it was not read. */
function ruleHolds(turn: Turn, alert: AlertFacts): boolean | undefined {
  const call = turn.calls.find((entry) => entry.tool === "prometheus_query" && entry.args.query === alert.expression);
  if (!call?.observation?.ok) return undefined;
  const reading = seriesReading(call.observation.data);
  return reading ? reading.shown.length > 0 : undefined;
}

/** One line per Prometheus read: the rule's result, what it measures, or another series, quoted. */
function prometheusLine(call: TurnCall, alert: AlertFacts, q: IncidentPhrases): string[] {
  if (!call.observation?.ok) return [];
  const query = String(call.args.query ?? "");
  const reading = seriesReading(call.observation.data);
  if (!reading) return [q.resultCut(query)];
  if (query === alert.expression) return [reading.shown.length > 0 ? q.ruleHolds(query, reading) : q.ruleClear(query)];
  if (reading.shown.length === 0) return [q.noSeries(query)];
  const comparison = alert.expression ? splitComparison(alert.expression) : undefined;
  return [
    comparison && query.startsWith(comparison.measured)
      ? q.measured(query, comparison, reading)
      : q.reading(query, reading),
  ];
}

/** What to do next, from what was read: wait when the rule no longer holds, else the runbook's first step and a restart offer. */
function nextStepLines(
  turn: Turn,
  context: { alert: AlertFacts; codes: string[]; serviceId?: string; boundTools: ReadonlySet<string> },
  q: IncidentPhrases,
): string[] {
  if (ruleHolds(turn, context.alert) === false) return [q.watchResolve];
  const runbooks = relevantRunbooks(runbooksOf(lastObservation(turn, "search_docs")), context.codes, context.serviceId);
  const guide = runbooks.find((runbook) => runbook.advice.length > 0);
  const step = guide ? q.followRunbook(guide.id, guide.advice[0]!) : q.noRunbookStep;
  const service = context.serviceId ?? context.alert.service;
  const restart = service && context.boundTools.has("restart_service") ? [q.offerRestart(service)] : [];
  const silence = context.boundTools.has("alertmanager_create_silence") && context.alert.source === "alertmanager";
  return [step, ...restart, ...(silence ? [q.offerSilence] : [])];
}

/**
 * An alert's investigation, from the observations only: the rule's values as Prometheus returned
 * them (or the service's metrics without Prometheus), the error logs, the runbooks' advice, and a
 * proposed next step; a write it proposes is for a person to ask for and approve.
 */
export function alertLines(turn: Turn, intent: Intent, p: Phrases, boundTools: ReadonlySet<string>): string[] {
  const alert = intent.alert!;
  const q = incidentPhrases(intent.language);
  const lines = [q.alertHeader(alert)];
  for (const call of turn.calls.filter((entry) => entry.tool === "prometheus_query"))
    lines.push(...prometheusLine(call, alert, q));
  const hit = serviceOf(lastObservation(turn, "search_resource"));
  if (lastObservation(turn, "search_resource")?.ok && !hit && alert.service) lines.push(p.noService(alert.service));
  const metrics = lastObservation(turn, "get_service_metrics");
  if (metrics?.ok) {
    const data = record(metrics.data);
    const fields = {
      service: String(data.service ?? hit?.id ?? alert.service ?? "?"),
      environment: String(data.environment ?? "?"),
    };
    // Its hint to look at the logs is moot: the investigation read them.
    const hint = p.metricsUnhealthy(fields.service, fields.environment);
    const measured = metricsLines(data, fields, p).filter((line) => line !== hint);
    // A table ends only at a blank line: the logs after it are a paragraph of their own.
    lines.push(...measured, ...(measured.at(-1)?.startsWith("|") ? [""] : []));
  }
  const logs = logsOf(lastObservation(turn, "search_logs"));
  const serviceId = hit?.id ?? logs?.service ?? alert.service;
  if (logs) lines.push(...logLines(logs, hit ? p.service(hit) : (serviceId ?? "?"), p));
  else if (alert.service && !alert.environment && boundTools.has("search_logs") && boundTools.has("prometheus_query"))
    lines.push(q.logsNeedEnvironment(alert.service));
  const codes = logs?.byCode.map((entry) => entry.code) ?? [];
  lines.push(...docsLines(turn, p, codes, serviceId));
  lines.push(...nextStepLines(turn, { alert, codes, serviceId, boundTools }, q));
  return lines;
}

/** The answer to a silence request: why it cannot be done, or the silence Alertmanager created (its id). */
export function silenceLines(turn: Turn, intent: Intent, boundTools: ReadonlySet<string>): string[] {
  const q = incidentPhrases(intent.language);
  const alertname = intent.alert?.alertname ?? "?";
  const call = [...turn.calls].reverse().find((entry) => entry.tool === "alertmanager_create_silence");
  const observation = call?.observation;
  if (!observation) {
    const problem = silenceProblem(intent, boundTools);
    switch (problem) {
      case "no_alert":
        return [q.noAlert];
      case "not_alertmanager":
        return [q.notAlertmanager(alertname)];
      case "no_tool":
        return [q.noAlertmanager(intent.alert?.alertname)];
      case "no_duration":
        return [q.askDuration(alertname)];
      case "too_long":
        return [q.tooLong(alertname)];
      case undefined:
        return [];
      default: {
        const _exhaustive: never = problem;
        return _exhaustive;
      }
    }
  }
  if (!observation.ok) {
    if (observation.errorCode === "approval_expired") return [q.silenceExpired(alertname, observation.message)];
    return observation.errorCode === "rejected_by_user" ? [q.silenceRejected(alertname, observation.message)] : [];
  }
  const data = record(observation.data);
  return [
    q.silenced({
      alertname,
      silenceId: String(data.silenceId ?? "?"),
      matchers: String(data.matchers ?? ""),
      endsAt: String(data.endsAt ?? "?"),
      created: data.created !== false,
    }),
  ];
}
