import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RunMetrics } from "../../../src/service/observability/metrics.js";

const DASHBOARD = JSON.parse(
  readFileSync(new URL("../../../deploy/grafana/opspilot.json", import.meta.url), "utf8"),
) as {
  panels: Array<{ id: number; type: string; title: string; targets?: Array<{ expr: string }> }>;
};
const queries = DASHBOARD.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

/** The series a PromQL expression reads, histogram series named by their metric. */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\bopspilot_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|sum|count)$/, ""));
}

describe("the Grafana dashboard in deploy/grafana", () => {
  it("reads only metrics that /metrics serves", async () => {
    const served = (await new RunMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name);
    const read = [...new Set(queries.flatMap(metricsIn))].sort();
    expect(read).toEqual([
      "opspilot_cost_usd_total",
      "opspilot_model_duration_seconds",
      "opspilot_paused_runs_total",
      "opspilot_pauses_total",
      "opspilot_pauses_waiting",
      "opspilot_run_duration_seconds",
      "opspilot_run_steps",
      "opspilot_runs_finished_total",
      "opspilot_runs_started_total",
      "opspilot_tokens_total",
      "opspilot_tool_calls_total",
      "opspilot_tool_duration_seconds",
    ]);
    expect(read.filter((name) => !served.includes(name))).toEqual([]);
  });

  it("opens with the seed's three numbers", () => {
    const stats = DASHBOARD.panels.filter((panel) => panel.type === "stat").slice(0, 3);
    expect(stats.map((panel) => panel.title)).toEqual([
      "Average steps per run · 平均转了几圈",
      "Tool failure rate · 工具失败率",
      "Paused, resumed, finished · 停下来问用户之后有多少能接着跑完",
    ]);
    expect(new Set(DASHBOARD.panels.map((panel) => panel.id)).size).toBe(DASHBOARD.panels.length);
  });
});
