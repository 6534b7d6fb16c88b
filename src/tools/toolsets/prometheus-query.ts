import { z } from "zod";
import { defineTool, type ToolDefinition } from "../types.js";
import type { ToolsetClient } from "./http-client.js";
import { prometheusData } from "./prometheus-api.js";
import {
  instantTable,
  MAX_POINTS,
  MAX_SERIES,
  rangeTable,
  type InstantTable,
  type RangeTable,
} from "./prometheus-result.js";
import { durationSeconds, isoOf, timeField, timeSeconds } from "./prometheus-time.js";

/** Most points a range may ask for per series: Prometheus's own limit, refused before the request. */
export const MAX_RANGE_POINTS = 11_000;

const queryField = z
  .string()
  .min(1)
  .max(4_000)
  .describe('PromQL, e.g. "up", "sum by (service) (rate(http_requests_total{code=~\\"5..\\"}[5m]))".');

const instantSchema = z.object({
  query: queryField,
  time: timeField("Evaluation time; omit for now").optional(),
});

const rangeSchema = z
  .object({
    query: queryField,
    start: timeField("Start of the range"),
    end: timeField("End of the range"),
    step: z
      .union([z.string(), z.number()])
      .describe(
        'Resolution: a duration ("30s", "5m", "1h") or seconds. Pick it so (end - start) / step stays near 60.',
      ),
  })
  .superRefine((args, issues) => {
    const now = Date.now();
    const step = durationSeconds(args.step);
    if (step === undefined || step <= 0) {
      issues.addIssue({
        code: "custom",
        path: ["step"],
        message: 'must be a positive duration ("30s", "5m") or seconds',
      });
      return;
    }
    const start = timeSeconds(args.start, now);
    const end = timeSeconds(args.end, now);
    if (start === undefined || end === undefined) return;
    if (end <= start) issues.addIssue({ code: "custom", path: ["end"], message: "must be later than start" });
    else if ((end - start) / step + 1 > MAX_RANGE_POINTS)
      issues.addIssue({
        code: "custom",
        path: ["step"],
        message: `is too small: the range would have ${Math.floor((end - start) / step) + 1} points per series, at most ${MAX_RANGE_POINTS}; use a larger step`,
      });
  });

/** `prometheus_query`: one PromQL expression evaluated at one instant. */
export function createPrometheusQueryTool(client: ToolsetClient): ToolDefinition {
  return defineTool({
    name: "prometheus_query",
    description:
      "Evaluate ONE PromQL expression at one instant (now unless time is given) against Prometheus. Use it for the " +
      "current value of a metric or an alert rule's expression: error rates, latencies, saturation, up. Returns rows " +
      `[series labels, value], at most ${MAX_SERIES} (seriesOmitted counts the rest: aggregate with sum by (...) or ` +
      "topk to see what matters). For a trend over time use prometheus_query_range; to find metric names use " +
      "prometheus_metric_names. A PromQL error comes back as invalid_args with Prometheus's message: fix the query.",
    schema: instantSchema,
    readOnly: true,
    risk: "low",
    timeoutMs: client.timeoutMs + 1_000,
    summarize(result) {
      const table = result as InstantTable;
      return [
        `${table.query} at ${table.time}: ${table.seriesCount} series`,
        ...table.rows.slice(0, 3).map(([series, value]) => `${series} = ${value}`),
      ];
    },
    async run(args, ctx) {
      const time = args.time === undefined ? undefined : timeSeconds(args.time, Date.now());
      const data = await prometheusData(client, {
        path: "/api/v1/query",
        query: { query: args.query, time: time === undefined ? undefined : String(time) },
        signal: ctx.signal,
      });
      return instantTable(args.query, data as { resultType?: string; result?: unknown });
    },
  });
}

/** `prometheus_query_range`: one PromQL expression over a time range. */
export function createPrometheusQueryRangeTool(client: ToolsetClient): ToolDefinition {
  return defineTool({
    name: "prometheus_query_range",
    description:
      "Evaluate ONE PromQL expression over a time range against Prometheus: how a metric moved, when a problem " +
      `started, whether a fix helped. Returns per series (at most ${MAX_SERIES}) min, max, last over every point and at ` +
      `most ${MAX_POINTS} points sampled evenly; seriesOmitted and pointsOmitted count what was left out. Choose step so ` +
      "the range has about 60 points. For the value now use prometheus_query. A PromQL error comes back as invalid_args " +
      "with Prometheus's message: fix the query.",
    schema: rangeSchema,
    readOnly: true,
    risk: "low",
    timeoutMs: client.timeoutMs + 1_000,
    summarize(result) {
      const table = result as RangeTable;
      return [
        `${table.query} from ${table.start} to ${table.end}: ${table.seriesCount} series`,
        ...table.series
          .slice(0, 3)
          .map((item) => `${item.series}: min ${item.min}, max ${item.max}, last ${item.last}`),
      ];
    },
    async run(args, ctx) {
      const now = Date.now();
      const request = {
        query: args.query,
        start: timeSeconds(args.start, now)!,
        end: timeSeconds(args.end, now)!,
        stepSeconds: durationSeconds(args.step)!,
      };
      const data = await prometheusData(client, {
        path: "/api/v1/query_range",
        query: {
          query: request.query,
          start: isoOf(request.start),
          end: isoOf(request.end),
          step: String(request.stepSeconds),
        },
        signal: ctx.signal,
      });
      return rangeTable(request, data as { resultType?: string; result?: unknown });
    },
  });
}
