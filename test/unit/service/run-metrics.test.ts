import { describe, expect, it } from "vitest";
import BetterSqlite3 from "better-sqlite3";
import type { AIMessage } from "@langchain/core/messages";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import { RecordsSummarySchema } from "../../../src/contracts/records.js";
import { createDemoTools, OpsStore } from "../../../src/demo/index.js";
import { RunMetrics } from "../../../src/service/observability/metrics.js";
import { createServer } from "../../../src/server/app.js";
import { createHarness } from "../../fixtures/harness.js";

const pauseOf = (events: RunEvent[]) =>
  events.find((event) => event.type === "loop_interrupt") as unknown as PauseValue;

/** A scripted turn that reports 100 input and 10 output tokens. */
function billed(message: AIMessage): AIMessage {
  message.usage_metadata = { input_tokens: 100, output_tokens: 10, total_tokens: 110 };
  return message;
}

/** The value of one sample line of the Prometheus text, e.g. `opspilot_run_steps_sum`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** One 3-step run that pauses once for the missing environment and is resumed. */
async function pausedAndResumedRun(metrics: RunMetrics) {
  const harness = createHarness({
    tools: createDemoTools(new OpsStore(new BetterSqlite3(":memory:"))),
    options: { inputPricePerMillion: 2, outputPricePerMillion: 10 },
    onEvent: (event) => metrics.observe(event),
    script: [
      billed(callsMessage([{ name: "search_resource", args: { query: "支付" }, id: "r1" }])),
      billed(callsMessage([{ name: "search_logs", args: { service: "payment-service", level: "ERROR" }, id: "l1" }])),
      billed(answerMessage("支付服务最近的错误已列出。")),
    ],
  });
  const paused = await harness.ask("看看支付服务最近报错");
  const pause = pauseOf(paused.events);
  const resumed = await harness.resume(paused.threadId, {
    decisions: [
      { callId: "l1", action: "approve", argsHash: pause.calls[0]!.argsHash, params: { environment: "prod" } },
    ],
  });
  return { harness, paused, resumed };
}

describe("run metrics", () => {
  it("counts a paused and resumed 3-step run as one run of 3 steps whose pause was resumed and finished", async () => {
    const metrics = new RunMetrics();
    const { harness, resumed } = await pausedAndResumedRun(metrics);
    expect(resumed.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 3 });
    const response = await createServer({ runtime: harness.runtime, metrics }).request("/metrics");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(sample(text, "opspilot_runs_started_total")).toBe(1);
    expect(sample(text, 'opspilot_runs_finished_total{stop_reason="final_answer"}')).toBe(1);
    expect(text).not.toContain('opspilot_runs_finished_total{stop_reason="interrupted"}');
    expect(sample(text, "opspilot_run_steps_count")).toBe(1);
    expect(sample(text, "opspilot_run_steps_sum")).toBe(3);
    expect(sample(text, 'opspilot_pauses_total{type="params_required"}')).toBe(1);
    expect(sample(text, 'opspilot_paused_runs_total{outcome="resumed_finished"}')).toBe(1);
    expect(sample(text, "opspilot_pauses_waiting")).toBe(0);
    expect(sample(text, 'opspilot_tool_calls_total{tool="search_resource",outcome="ok"}')).toBe(1);
    expect(sample(text, 'opspilot_tool_calls_total{tool="search_logs",outcome="ok"}')).toBe(1);
    expect(sample(text, "opspilot_model_duration_seconds_count")).toBe(3);
    expect(sample(text, 'opspilot_tokens_total{kind="input"}')).toBe(300);
    expect(sample(text, 'opspilot_tokens_total{kind="output"}')).toBe(30);
    // 3 turns × (100 × $2 + 10 × $10) per million tokens.
    expect(sample(text, "opspilot_cost_usd_total")).toBeCloseTo(0.0009, 12);
    await harness.close();
  });

  it("shows a pause as waiting until it is answered", async () => {
    const metrics = new RunMetrics();
    const harness = createHarness({
      tools: createDemoTools(new OpsStore(new BetterSqlite3(":memory:"))),
      onEvent: (event) => metrics.observe(event),
      script: [callsMessage([{ name: "search_logs", args: { service: "payment-service" }, id: "l1" }])],
    });
    const paused = await harness.ask("看看支付服务最近报错");
    let text = await metrics.registry.metrics();
    expect(sample(text, "opspilot_pauses_waiting")).toBe(1);
    expect(sample(text, "opspilot_run_steps_count")).toBe(0);
    expect(await harness.runtime.cancelRun(paused.threadId, harness.user)).toBe(true);
    text = await metrics.registry.metrics();
    expect(sample(text, "opspilot_pauses_waiting")).toBe(0);
    expect(sample(text, "opspilot_runs_started_total")).toBe(1);
    expect(sample(text, 'opspilot_runs_finished_total{stop_reason="cancelled"}')).toBe(1);
    expect(sample(text, 'opspilot_paused_runs_total{outcome="cancelled"}')).toBe(1);
    await harness.close();
  });
});

describe("records summary", () => {
  it("shows the same run, steps, pause outcome and tokens as the metrics", async () => {
    const { harness } = await pausedAndResumedRun(new RunMetrics());
    const now = Date.now();
    const summary = RecordsSummarySchema.parse(
      await harness.storage.summary({ since: now - 86_400_000, until: now + 1 }),
    );
    expect(summary).toMatchObject({
      runs: 1,
      averageSteps: 3,
      toolCalls: 2,
      toolFailureRate: 0,
      stopReasons: { final_answer: 1 },
      resumedAndFinished: 1,
      pauses: { paused: 1, resumedAndFinished: 1, resumedAndStopped: 0, cancelled: 0, waiting: 0, resumeFinishRate: 1 },
      tokens: { input: 300, output: 30 },
      topFailingTools: [],
      waitingPauses: [],
    });
    expect(summary.costUsd).toBeCloseTo(0.0009, 12);
    expect(summary.stepLatencyMs.count).toBe(3);
    expect(summary.toolLatencyMs.count).toBe(2);
    expect(summary.days.map((day) => day.runs)).toEqual(summary.days.map((day) => (day.day === today() ? 1 : 0)));
    const outside = await harness.storage.summary({ since: now - 2 * 86_400_000, until: now - 86_400_000 });
    expect(outside).toMatchObject({
      runs: 0,
      averageSteps: 0,
      toolCalls: 0,
      pauses: { paused: 0, resumeFinishRate: 0 },
    });
    await harness.close();
  });

  it("lists a pause still waiting with its thread, tool and time", async () => {
    const harness = createHarness({
      tools: createDemoTools(new OpsStore(new BetterSqlite3(":memory:"))),
      script: [callsMessage([{ name: "search_logs", args: { service: "payment-service" }, id: "l1" }])],
    });
    const before = Date.now();
    const paused = await harness.ask("看看支付服务最近报错");
    const summary = await harness.storage.summary({ since: before - 1000, until: Date.now() + 1 });
    expect(summary).toMatchObject({ runs: 0, pauses: { paused: 1, waiting: 1, resumeFinishRate: 0 } });
    expect(summary.waitingPauses).toHaveLength(1);
    expect(summary.waitingPauses[0]).toMatchObject({ threadId: paused.threadId, tool: "search_logs" });
    expect(Date.parse(summary.waitingPauses[0]!.since)).toBeGreaterThanOrEqual(before);
    await harness.close();
  });
});

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
