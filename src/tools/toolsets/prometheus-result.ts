import { ToolError } from "../../contracts/errors.js";
import { clip } from "../facts.js";
import { isoOf } from "./prometheus-time.js";

/** Most series an observation lists; the count of the others is stated. */
export const MAX_SERIES = 20;
/** Most points listed per series of a range; the others are sampled out evenly and counted. */
export const MAX_POINTS = 30;

/** A sample value: a number, or Prometheus's text for what JSON cannot carry ("NaN", "+Inf"). */
export type SampleValue = number | string;

/** An instant query's result as a small table: one row per series. */
export interface InstantTable {
  /** The PromQL asked. */
  query: string;
  /** Prometheus's result type. */
  resultType: "vector" | "scalar" | "string";
  /** When it was evaluated. */
  time: string;
  /** Series in the result. */
  seriesCount: number;
  /** Series left out of `rows` (beyond MAX_SERIES). */
  seriesOmitted: number;
  /** Always `["series", "value"]`. */
  columns: ["series", "value"];
  /** `[labels in PromQL notation, value]`. */
  rows: Array<[string, SampleValue]>;
}

/** A range query's result: per series its stats over every point and at most MAX_POINTS points. */
export interface RangeTable {
  /** The PromQL asked. */
  query: string;
  /** Always "matrix". */
  resultType: "matrix";
  /** First and last evaluation time and the step in seconds. */
  start: string;
  end: string;
  stepSeconds: number;
  /** Series in the result. */
  seriesCount: number;
  /** Series left out (beyond MAX_SERIES). */
  seriesOmitted: number;
  /** Points left out of the listed series' `values` (sampled evenly; min, max and last cover them all). */
  pointsOmitted: number;
  /** The series shown. */
  series: Array<{
    series: string;
    points: number;
    min: SampleValue | null;
    max: SampleValue | null;
    last: SampleValue | null;
    values: Array<[string, SampleValue]>;
  }>;
}

interface RawSeries {
  metric?: Record<string, string>;
  value?: [number, string];
  values?: Array<[number, string]>;
}

/** Labels as PromQL writes them: `up{instance="a:9100", job="node"}`. */
export function seriesName(metric: Record<string, string> = {}): string {
  const { __name__: name = "", ...labels } = metric;
  const pairs = Object.entries(labels).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return clip(pairs.length > 0 || !name ? `${name}{${pairs.join(", ")}}` : name, 240);
}

/** A sample's text as a number when JSON can carry it. */
export function sampleValue(text: string): SampleValue {
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

/** The `data` of an instant query as a table, capped at MAX_SERIES rows. */
export function instantTable(query: string, data: { resultType?: string; result?: unknown }): InstantTable {
  const at = (sample: [number, string]) => ({ time: isoOf(sample[0]), value: sampleValue(sample[1]) });
  if (data.resultType === "scalar" || data.resultType === "string") {
    const sample = at(data.result as [number, string]);
    return {
      query,
      resultType: data.resultType,
      time: sample.time,
      seriesCount: 1,
      seriesOmitted: 0,
      columns: ["series", "value"],
      rows: [[data.resultType, sample.value]],
    };
  }
  if (data.resultType !== "vector") throw unexpected(data.resultType);
  const result = (data.result ?? []) as RawSeries[];
  const shown = result.slice(0, MAX_SERIES);
  return {
    query,
    resultType: "vector",
    time: shown[0]?.value ? isoOf(shown[0].value[0]) : new Date().toISOString(),
    seriesCount: result.length,
    seriesOmitted: result.length - shown.length,
    columns: ["series", "value"],
    rows: shown.map((series) => [seriesName(series.metric), sampleValue(series.value?.[1] ?? "NaN")]),
  };
}

/** The `data` of a range query, capped at MAX_SERIES series of at most MAX_POINTS points each. */
export function rangeTable(
  request: { query: string; start: number; end: number; stepSeconds: number },
  data: { resultType?: string; result?: unknown },
): RangeTable {
  if (data.resultType !== "matrix") throw unexpected(data.resultType);
  const result = (data.result ?? []) as RawSeries[];
  const shown = result.slice(0, MAX_SERIES);
  let pointsOmitted = 0;
  const series = shown.map((raw) => {
    const values = raw.values ?? [];
    const numbers = values.map(([, text]) => Number(text)).filter(Number.isFinite);
    const sampled = evenly(values, MAX_POINTS);
    pointsOmitted += values.length - sampled.length;
    const last = values.at(-1);
    return {
      series: seriesName(raw.metric),
      points: values.length,
      min: numbers.length > 0 ? Math.min(...numbers) : null,
      max: numbers.length > 0 ? Math.max(...numbers) : null,
      last: last ? sampleValue(last[1]) : null,
      values: sampled.map(([time, text]): [string, SampleValue] => [isoOf(time), sampleValue(text)]),
    };
  });
  return {
    query: request.query,
    resultType: "matrix",
    start: isoOf(request.start),
    end: isoOf(request.end),
    stepSeconds: request.stepSeconds,
    seriesCount: result.length,
    seriesOmitted: result.length - shown.length,
    pointsOmitted,
    series,
  };
}

/** At most `limit` items spread evenly over the list, the first and the last always among them. */
function evenly<T>(items: readonly T[], limit: number): T[] {
  if (items.length <= limit) return [...items];
  return Array.from({ length: limit }, (_, index) => items[Math.round((index * (items.length - 1)) / (limit - 1))]!);
}

function unexpected(resultType: string | undefined): ToolError {
  return new ToolError("internal", `Prometheus answered with an unexpected result type (${resultType ?? "none"}).`);
}
