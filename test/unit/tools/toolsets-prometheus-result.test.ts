import { describe, expect, it } from "vitest";
import {
  instantTable,
  MAX_POINTS,
  MAX_SERIES,
  rangeTable,
  seriesName,
} from "../../../src/tools/toolsets/prometheus-result.js";
import { durationSeconds, timeSeconds } from "../../../src/tools/toolsets/prometheus-time.js";
import { createPrometheusQueryRangeTool } from "../../../src/tools/toolsets/prometheus-query.js";
import { createToolsetClient } from "../../../src/tools/toolsets/http-client.js";

const NOW = Date.parse("2025-05-01T10:00:00Z");

describe("Prometheus times and durations", () => {
  it("reads RFC 3339, unix seconds, now and now-<duration>, and nothing else", () => {
    expect(timeSeconds("2025-05-01T09:00:00Z", NOW)).toBe(NOW / 1000 - 3_600);
    expect(timeSeconds("2025-05-01T11:00:00+02:00", NOW)).toBe(NOW / 1000 - 3_600);
    expect(timeSeconds("1746090000", NOW)).toBe(1_746_090_000);
    expect(timeSeconds(1_746_090_000.5, NOW)).toBe(1_746_090_000.5);
    expect(timeSeconds("now", NOW)).toBe(NOW / 1000);
    expect(timeSeconds("now-1h30m", NOW)).toBe(NOW / 1000 - 5_400);
    for (const bad of ["yesterday", "May 5", "2025-05-01", "now+1h", "now-1x", ""])
      expect(timeSeconds(bad, NOW)).toBeUndefined();
  });

  it("reads durations as Prometheus writes them or as seconds", () => {
    expect([
      durationSeconds("30s"),
      durationSeconds("5m"),
      durationSeconds("1h30m"),
      durationSeconds(15),
      durationSeconds("0.5"),
    ]).toEqual([30, 300, 5_400, 15, 0.5]);
    expect(durationSeconds("5 minutes")).toBeUndefined();
  });

  it("refuses a zero step and a range of more points than Prometheus allows before any request", () => {
    const tool = createPrometheusQueryRangeTool(createToolsetClient("Prometheus", { url: "http://127.0.0.1:1" }));
    const issues = (args: Record<string, unknown>) => {
      const parsed = tool.schema.safeParse({ query: "up", ...args });
      return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    };
    expect(issues({ start: "now-1h", end: "now", step: "0s" })).toEqual([
      'step: must be a positive duration ("30s", "5m") or seconds',
    ]);
    expect(issues({ start: "now-7d", end: "now", step: "1s" })).toEqual([
      "step: is too small: the range would have 604801 points per series, at most 11000; use a larger step",
    ]);
    expect(issues({ start: "soon", end: "now", step: "1m" })).toEqual([
      'start: must be an RFC 3339 time ("2025-05-01T10:00:00Z"), unix seconds, "now" or "now-<duration>" ("now-1h")',
    ]);
    expect(issues({ start: "now-1h", end: "now", step: "1m" })).toEqual([]);
  });
});

describe("Prometheus results as tables", () => {
  const metric = (index: number) => ({ __name__: "up", job: "node", instance: `host-${index}:9100` });

  it("writes labels as PromQL does", () => {
    expect(seriesName(metric(1))).toBe('up{job="node", instance="host-1:9100"}');
    expect(seriesName({ __name__: "up" })).toBe("up");
    expect(seriesName({ job: "x" })).toBe('{job="x"}');
  });

  it("caps a vector at MAX_SERIES rows and says how many were left out; NaN stays text", () => {
    const result = Array.from({ length: MAX_SERIES + 5 }, (_, index) => ({
      metric: metric(index),
      value: [NOW / 1000, index === 0 ? "NaN" : String(index)] as [number, string],
    }));
    const table = instantTable("up", { resultType: "vector", result });
    expect(table).toMatchObject({
      resultType: "vector",
      time: "2025-05-01T10:00:00.000Z",
      seriesCount: 25,
      seriesOmitted: 5,
    });
    expect(table.rows).toHaveLength(MAX_SERIES);
    expect(table.rows.slice(0, 2)).toEqual([
      ['up{job="node", instance="host-0:9100"}', "NaN"],
      ['up{job="node", instance="host-1:9100"}', 1],
    ]);
    expect(instantTable("1+1", { resultType: "scalar", result: [NOW / 1000, "2"] }).rows).toEqual([["scalar", 2]]);
  });

  it("samples a long series evenly to MAX_POINTS, keeping first and last, with stats over every point", () => {
    const values = Array.from(
      { length: 100 },
      (_, index) => [NOW / 1000 + index * 60, String(index)] as [number, string],
    );
    const table = rangeTable(
      { query: "up", start: NOW / 1000, end: NOW / 1000 + 99 * 60, stepSeconds: 60 },
      { resultType: "matrix", result: [{ metric: metric(1), values }] },
    );
    const [only] = table.series;
    expect(table).toMatchObject({
      seriesCount: 1,
      seriesOmitted: 0,
      pointsOmitted: 100 - MAX_POINTS,
      start: "2025-05-01T10:00:00.000Z",
    });
    expect(only).toMatchObject({ points: 100, min: 0, max: 99, last: 99 });
    expect(only!.values).toHaveLength(MAX_POINTS);
    expect(only!.values[0]).toEqual(["2025-05-01T10:00:00.000Z", 0]);
    expect(only!.values.at(-1)).toEqual(["2025-05-01T11:39:00.000Z", 99]);
  });
});
