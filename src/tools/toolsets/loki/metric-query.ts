import { z } from "zod";
import { ToolError } from "../../../contracts/errors.js";
import { defineTool, type ToolDefinition } from "../../types.js";
import { instanceShape, pickInstance, sourceName } from "../log-shaping/instances.js";
import { endAfterStart, windowOf, windowShape } from "../log-shaping/window.js";
import { durationSeconds } from "../prometheus-time.js";
import { MAX_POINTS, MAX_SERIES, rangeTable, type RangeTable } from "../prometheus-result.js";
import { lokiData, nanoseconds } from "./api.js";
import type { LokiTarget } from "./query.js";

/** Most points a metric query may ask for per series, as Loki's own `max_query_points`-style limit. */
const MAX_STEPS = 11_000;

/** `loki_metric_query`: a LogQL metric query (count_over_time, rate, …) over a window: how many, since when. */
export function createLokiMetricQueryTool(targets: readonly LokiTarget[]): ToolDefinition {
  return defineTool({
    name: "loki_metric_query",
    description:
      "Count log lines over time with a LogQL metric query against Loki: how many errors, since when, which " +
      'service. E.g. sum by (app) (count_over_time({namespace="payments"} |= "timeout" [5m])) or ' +
      'rate({app="api"} | json | level="error" [1m]). Returns per series (at most ' +
      `${MAX_SERIES}) min, max and last over every step and at most ${MAX_POINTS} points. Choose step so the window ` +
      "has about 60 steps. For the lines themselves use loki_query. A LogQL error comes back as invalid_args.",
    schema: z
      .object({
        query: z.string().min(1).max(4_000).describe("A LogQL metric query: count_over_time, rate, bytes_over_time, …"),
        ...windowShape,
        step: z
          .union([z.string(), z.number()])
          .optional()
          .describe('Resolution: a duration ("30s", "5m") or seconds; default the window divided by 60'),
        ...instanceShape(
          targets.map((target) => target.name),
          "Loki",
        ),
      })
      .superRefine(endAfterStart),
    readOnly: true,
    risk: "low",
    timeoutMs: Math.max(...targets.map((target) => target.client.timeoutMs)) + 1_000,
    summarize(result) {
      const table = result as RangeTable & { source: string };
      return [
        `${table.source} ${table.query} from ${table.start} to ${table.end}: ${table.seriesCount} series`,
        ...table.series.slice(0, 3).map((item) => `${item.series}: max ${item.max}, last ${item.last}`),
      ];
    },
    async run(args, ctx) {
      const target = pickInstance(targets, (args as { instance?: string }).instance);
      const window = windowOf(args);
      const span = (window.end - window.start) / 1000;
      const stepSeconds = args.step === undefined ? Math.max(1, Math.ceil(span / 60)) : durationSeconds(args.step);
      if (stepSeconds === undefined || stepSeconds <= 0)
        throw new ToolError("invalid_args", 'step: must be a positive duration ("30s", "5m") or seconds');
      if (span / stepSeconds + 1 > MAX_STEPS)
        throw new ToolError(
          "invalid_args",
          `step: too small for the window (at most ${MAX_STEPS} steps); use a larger step`,
        );
      const data = (await lokiData(target.client, {
        path: "/loki/api/v1/query_range",
        query: {
          query: args.query,
          start: nanoseconds(window.start),
          end: nanoseconds(window.end),
          step: String(stepSeconds),
        },
        signal: ctx.signal,
      })) as { resultType?: string; result?: unknown };
      if (data.resultType === "streams")
        throw new ToolError(
          "invalid_args",
          `Loki: "${args.query}" is a log query (it returns lines); wrap it in count_over_time(...[5m]) or rate(...), or read the lines with loki_query.`,
        );
      const table = rangeTable(
        { query: args.query, start: window.start / 1000, end: window.end / 1000, stepSeconds },
        data,
      );
      return { source: sourceName("Loki", target, targets.length), ...table };
    },
  });
}
