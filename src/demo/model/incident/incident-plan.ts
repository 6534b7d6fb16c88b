import type { AlertFacts } from "./alert-text.js";
import { serviceOf } from "../data.js";
import type { Intent } from "../intent.js";
import type { ProposedCall } from "../proposed-call.js";
import { splitComparison, targetUpQuery } from "../promql.js";
import { MAX_SILENCE_MINUTES, silenceComment, silenceMatchers } from "./silence.js";
import { lastObservation, wasCalled, type Turn } from "../turn.js";

/** Labels that tie an alert to a service or a scrape target, so one more of its metrics is worth reading. */
const TARGET_LABELS = ["service", "job", "instance"];
const BARE_METRIC = /^[A-Za-z_:][A-Za-z0-9_:]*$/;

/**
 * The PromQL an alert's investigation reads now: the rule's expression (does it still hold?),
 * and, when the labels name a service or target, what the rule measures without its comparison
 * (how far past the threshold), a bare metric narrowed to the alert's target; else `up` of the target.
 */
export function alertQueries(alert: AlertFacts): string[] {
  const queries = alert.expression ? [alert.expression] : [];
  if (!alert.labels.some(([name]) => TARGET_LABELS.includes(name))) return queries;
  const measured = alert.expression ? splitComparison(alert.expression)?.measured : undefined;
  const target = targetUpQuery(alert.labels);
  const narrowed = measured && BARE_METRIC.test(measured) && target ? target.replace(/^up/, measured) : measured;
  const second = narrowed ?? target;
  return second && !queries.includes(second) ? [...queries, second] : queries;
}

/**
 * An alert's investigation, reads only: with Prometheus, the rule's queries, the runbooks and, when
 * a label names the environment, the service's error logs, all at once, so it finishes unattended
 * (logs without an environment would pause it to ask a person); without Prometheus, the built-in
 * tools as for a service question: find the service and its runbooks, then its metrics and error
 * logs (asking for the environment when no label names it).
 */
export function alertCalls(turn: Turn, intent: Intent, boundTools: ReadonlySet<string>): ProposedCall[] {
  const alert = intent.alert!;
  const environment = alert.environment ? { environment: alert.environment } : {};
  const docs = intent.docsQuery ? [{ name: "search_docs", args: { query: intent.docsQuery } }] : [];
  if (boundTools.has("prometheus_query")) {
    const queries = alertQueries(alert).map((query) => ({ name: "prometheus_query", args: { query } }));
    const logs =
      alert.service && alert.environment
        ? [{ name: "search_logs", args: { service: alert.service, level: "ERROR", ...environment } }]
        : [];
    return [...queries, ...docs, ...logs];
  }
  const lookUp = alert.service && boundTools.has("search_resource");
  const resource = lookUp ? [{ name: "search_resource", args: { query: alert.service! } }] : [];
  const service = lookUp ? serviceOf(lastObservation(turn, "search_resource"))?.id : alert.service;
  const reads = service
    ? [
        { name: "get_service_metrics", args: { service, ...environment } },
        { name: "search_logs", args: { service, level: "ERROR", ...environment } },
      ]
    : [];
  return [...resource, ...docs, ...reads];
}

/** Why a silence request gets no call; undefined when the silence can be proposed. */
export type SilenceProblem = "no_alert" | "not_alertmanager" | "no_tool" | "no_duration" | "too_long";

/** What stops the thread's alert from being silenced as asked, checked in the order a person fixes them. */
export function silenceProblem(intent: Intent, boundTools: ReadonlySet<string>): SilenceProblem | undefined {
  const minutes = intent.silence?.minutes;
  if (!boundTools.has("alertmanager_create_silence")) return "no_tool";
  if (!intent.alert) return "no_alert";
  if (intent.alert.source !== "alertmanager") return "not_alertmanager";
  if (minutes === undefined || minutes < 1) return "no_duration";
  if (minutes > MAX_SILENCE_MINUTES) return "too_long";
  return undefined;
}

/** The silence of the thread's alert: its alertname and identifying labels, for the minutes asked. */
export function silenceCalls(turn: Turn, intent: Intent, boundTools: ReadonlySet<string>): ProposedCall[] {
  if (silenceProblem(intent, boundTools) || wasCalled(turn, "alertmanager_create_silence")) return [];
  const alert = intent.alert!;
  const minutes = intent.silence!.minutes!;
  return [
    {
      name: "alertmanager_create_silence",
      args: {
        matchers: silenceMatchers(alert),
        durationMinutes: minutes,
        comment: silenceComment(alert, minutes, intent.language),
      },
    },
  ];
}
