import { z } from "zod";
import { clip } from "../facts.js";
import { defineTool, type ToolDefinition } from "../types.js";
import type { ToolsetClient } from "./http-client.js";
import { prometheusData } from "./prometheus-api.js";
import { sampleValue, seriesName, type SampleValue } from "./prometheus-result.js";

/** Most alerts an observation lists. */
export const MAX_ALERTS = 30;
/** Most names or label values an observation lists. */
export const MAX_NAMES = 100;

/** One alert of Prometheus's rules, as the model reads it. */
export interface AlertRow {
  alertname: string;
  state: string;
  /** The other labels in PromQL notation. */
  labels: string;
  activeAt: string | null;
  value: SampleValue | null;
  /** The `summary` (else `description`) annotation, cut short. */
  summary?: string;
}

interface RawAlert {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  state?: string;
  activeAt?: string;
  value?: string;
}

/** `prometheus_alerts`: the alerts of Prometheus's rules that are firing (or pending) now. */
export function createPrometheusAlertsTool(client: ToolsetClient): ToolDefinition {
  return defineTool({
    name: "prometheus_alerts",
    description:
      'List the alerts of Prometheus\'s alerting rules that are firing now (state "pending" for those about to fire, ' +
      `"all" for both): alertname, labels, since when, the value that fired it, its summary. At most ${MAX_ALERTS}; ` +
      "omitted counts the rest. Use it to see what is wrong across the estate before querying metrics. Not for silences " +
      "(alertmanager_silences).",
    schema: z.object({
      state: z.enum(["firing", "pending", "all"]).default("firing").describe('"firing" (default), "pending" or "all".'),
    }),
    readOnly: true,
    risk: "low",
    timeoutMs: client.timeoutMs + 1_000,
    summarize(result) {
      const found = result as { state: string; count: number; alerts: AlertRow[] };
      return [
        `${found.count} ${found.state} alert(s)`,
        ...found.alerts.slice(0, 5).map((alert) => `${alert.alertname} ${alert.labels} since ${alert.activeAt}`),
      ];
    },
    async run(args, ctx) {
      const data = (await prometheusData(client, { path: "/api/v1/alerts", signal: ctx.signal })) as {
        alerts?: RawAlert[];
      };
      const alerts = (data.alerts ?? []).filter((alert) => args.state === "all" || alert.state === args.state);
      return {
        state: args.state,
        count: alerts.length,
        omitted: Math.max(0, alerts.length - MAX_ALERTS),
        alerts: alerts.slice(0, MAX_ALERTS).map(alertRow),
      };
    },
  });
}

/** `prometheus_metric_names`: the metric names (or one label's values) Prometheus holds, to find what to query. */
export function createPrometheusMetricNamesTool(client: ToolsetClient): ToolDefinition {
  return defineTool({
    name: "prometheus_metric_names",
    description:
      "Find what to query in Prometheus: the metric names it holds, or with label the values of that label (e.g. " +
      'label "service" or "job"). Narrow with match (a series selector such as {job="payments"}) and contains (words ' +
      `the name must hold, e.g. "http_requests"). At most ${MAX_NAMES}; total counts them all. Use it before ` +
      "prometheus_query when you do not know a metric's exact name.",
    schema: z.object({
      label: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "must be a label name" })
        .optional()
        .describe("A label whose values to list instead of metric names; omit for metric names."),
      match: z.string().min(1).max(1_000).optional().describe('A series selector, e.g. {job="payments"}.'),
      contains: z.string().min(1).max(200).optional().describe("Only names containing this text (case-insensitive)."),
    }),
    readOnly: true,
    risk: "low",
    timeoutMs: client.timeoutMs + 1_000,
    summarize(result) {
      const found = result as { label: string; total: number; names: string[] };
      return [`${found.total} ${found.label} value(s): ${found.names.slice(0, 8).join(", ")}`];
    },
    async run(args, ctx) {
      const label = args.label ?? "__name__";
      const data = await prometheusData(client, {
        path: `/api/v1/label/${encodeURIComponent(label)}/values`,
        query: { "match[]": args.match === undefined ? undefined : [args.match] },
        signal: ctx.signal,
      });
      const needle = args.contains?.toLowerCase();
      const names = ((data ?? []) as string[]).filter((name) => !needle || name.toLowerCase().includes(needle));
      return {
        label,
        total: names.length,
        omitted: Math.max(0, names.length - MAX_NAMES),
        names: names.slice(0, MAX_NAMES),
      };
    },
  });
}

function alertRow(alert: RawAlert): AlertRow {
  const { alertname = "", ...labels } = alert.labels ?? {};
  const summary = alert.annotations?.summary ?? alert.annotations?.description;
  return {
    alertname,
    state: alert.state ?? "unknown",
    labels: seriesName(labels),
    activeAt: alert.activeAt ?? null,
    value: alert.value === undefined ? null : sampleValue(alert.value),
    ...(summary ? { summary: clip(summary, 200) } : {}),
  };
}
