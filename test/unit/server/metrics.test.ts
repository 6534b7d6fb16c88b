import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { RunMetrics } from "../../../src/service/observability/metrics.js";
import { createServer } from "../../../src/server/app.js";
import { createHarness } from "../../fixtures/harness.js";

describe("/metrics", () => {
  it("counts runs by stop reason and tool results by outcome in the Prometheus format", async () => {
    const metrics = new RunMetrics();
    const harness = createHarness({
      script: [callsMessage([{ name: "read_a", args: { query: "x" } }, { name: "explode" }]), answerMessage("ok")],
      onEvent: (event) => metrics.observe(event),
    });
    await harness.ask("go");
    const response = await createServer({ runtime: harness.runtime, metrics }).request("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain('opspilot_runs_finished_total{stop_reason="final_answer"} 1');
    expect(text).toContain('opspilot_tool_calls_total{tool="read_a",outcome="ok"} 1');
    expect(text).toContain('opspilot_tool_calls_total{tool="explode",outcome="internal"} 1');
    expect(text).toContain("opspilot_run_steps_sum 2");
  });

  it("asks for the metrics token or an admin API token once tokens are configured", async () => {
    const harness = createHarness({ script: [answerMessage("ok")] });
    const tokens = new Map([
      ["admin-token-0001", { id: "ada", role: "admin" }],
      ["alice-token-0002", { id: "alice", role: "operator" }],
    ]);
    const app = createServer({
      runtime: harness.runtime,
      metrics: new RunMetrics(),
      auth: { tokens, metricsToken: "scrape-token-0003" },
    });
    const scrape = (token?: string) =>
      app.request("/metrics", { headers: token ? { authorization: `Bearer ${token}` } : {} });

    for (const token of [undefined, "wrong-token-9999"]) {
      const refused = await scrape(token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="opspilot"');
      expect(await refused.json()).toEqual({
        error: {
          code: "unauthorized",
          message: "/metrics needs an Authorization: Bearer header with OPSPILOT_METRICS_TOKEN or an admin API token.",
        },
      });
    }
    const operator = await scrape("alice-token-0002");
    expect(operator.status).toBe(403);
    expect(await operator.json()).toEqual({
      error: { code: "forbidden", message: "Only the metrics token or an admin API token may read /metrics." },
    });
    expect((await scrape("scrape-token-0003")).status).toBe(200);
    expect((await scrape("admin-token-0001")).status).toBe(200);
    const api = await app.request("/api/threads", {
      method: "POST",
      headers: { authorization: "Bearer scrape-token-0003" },
    });
    expect(api.status).toBe(401);
  });

  it("asks for the metrics token when it is the only token configured", async () => {
    const harness = createHarness({ script: [answerMessage("ok")] });
    const app = createServer({
      runtime: harness.runtime,
      metrics: new RunMetrics(),
      auth: { metricsToken: "scrape-token-0003" },
    });
    expect((await app.request("/metrics")).status).toBe(401);
    const allowed = await app.request("/metrics", { headers: { authorization: "Bearer scrape-token-0003" } });
    expect(allowed.status).toBe(200);
  });
});
