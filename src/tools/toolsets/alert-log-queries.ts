import type { ElasticsearchInstance, LokiInstance } from "../../config/log-toolsets-schema.js";
import type { Toolsets } from "../../config/toolsets-schema.js";
import { instancesOf } from "./log-shaping/instances.js";

/** A log read an alert's investigation starts with: the tool and its arguments. */
export interface AlertLogCall {
  tool: "loki_query" | "elasticsearch_search";
  args: Record<string, string>;
}

/** How long before the alert's start its logs are read from. */
export const ALERT_LOG_LEAD_MS = 15 * 60_000;

/** The labels an alert names its workload with, and where each falls back when the alert lacks it. */
const FALLBACKS: Readonly<Record<string, readonly string[]>> = {
  service: ["service", "app", "job"],
  app: ["app", "service"],
  namespace: ["namespace"],
  job: ["job"],
};

/** The selector of the alert's workload labels when `toolsets.loki.alertQuery` is not set. */
const DEFAULT_LOKI_SELECTOR = ["namespace", "app", "service"];
/** `toolsets.elasticsearch.alertQuery` when it is not set: ECS's service field. */
const DEFAULT_SEARCH_QUERY = 'service.name:"$service"';

/**
 * Fills `$label` references from the alert's labels, escaped for a quoted string; undefined when
 * the template names a label the alert has no value for (the query would read the wrong logs).
 */
export function fillAlertQuery(template: string, labels: Readonly<Record<string, string>>): string | undefined {
  let missing = false;
  const filled = template.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = (FALLBACKS[name] ?? [name]).map((key) => labels[key]).find((found) => found);
    if (value === undefined) missing = true;
    return (value ?? "").replace(/[\\"]/g, "\\$&");
  });
  return missing ? undefined : filled;
}

function defaultLokiQuery(labels: Readonly<Record<string, string>>): string | undefined {
  const matchers = DEFAULT_LOKI_SELECTOR.filter((name) => labels[name]).map(
    (name) => `${name}="${labels[name]!.replace(/[\\"]/g, "\\$&")}"`,
  );
  return matchers.length > 0 ? `{${matchers.join(", ")}} |~ "(?i)error"` : undefined;
}

/**
 * The first log reads of an alert's investigation, one per configured log instance whose query the
 * alert's labels fill (`service`, `namespace`, `app`, `job`), from ALERT_LOG_LEAD_MS before it started.
 */
export function alertLogCalls(
  toolsets: Toolsets,
  alert: { labels: Readonly<Record<string, string>>; startsAt?: string },
): AlertLogCall[] {
  const started = alert.startsAt ? Date.parse(alert.startsAt) : Number.NaN;
  const start = Number.isNaN(started) ? "now-1h" : new Date(started - ALERT_LOG_LEAD_MS).toISOString();
  const calls: AlertLogCall[] = [];
  const add = (tool: AlertLogCall["tool"], query: string | undefined, name: string, several: boolean) => {
    if (query) calls.push({ tool, args: { query, start, ...(several ? { instance: name } : {}) } });
  };
  if (toolsets.loki) {
    const instances = instancesOf<LokiInstance>(toolsets.loki);
    for (const instance of instances) {
      const query = instance.alertQuery
        ? fillAlertQuery(instance.alertQuery, alert.labels)
        : defaultLokiQuery(alert.labels);
      add("loki_query", query, instance.name, instances.length > 1);
    }
  }
  if (toolsets.elasticsearch) {
    const instances = instancesOf<ElasticsearchInstance>(toolsets.elasticsearch);
    for (const instance of instances)
      add(
        "elasticsearch_search",
        fillAlertQuery(instance.alertQuery ?? DEFAULT_SEARCH_QUERY, alert.labels),
        instance.name,
        instances.length > 1,
      );
  }
  return calls;
}
