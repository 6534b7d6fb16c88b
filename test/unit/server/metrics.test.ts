import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../../src/models/scripted-model.js";
import { RunMetrics } from "../../../src/service/metrics.js";
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
    expect(text).toContain('opspilot_runs_total{stop_reason="final_answer"} 1');
    expect(text).toContain('opspilot_tool_calls_total{tool="read_a",outcome="ok"} 1');
    expect(text).toContain('opspilot_tool_calls_total{tool="explode",outcome="internal"} 1');
    expect(text).toContain("opspilot_run_steps_sum 2");
  });
});
