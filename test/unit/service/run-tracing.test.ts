import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import type { RunEvent, RunEventBody } from "../../../src/contracts/events.js";
import { createRunTracing } from "../../../src/service/observability/run-tracing.js";

function traced(captureContent = false) {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const errors: string[] = [];
  const tracing = createRunTracing({
    tracer: provider.getTracer("test"),
    model: { provider: "openai", name: "gpt-4.1" },
    captureContent,
    logger: { error: (message: string) => errors.push(message) },
  });
  let seq = 0;
  const tell = (runId: string, body: RunEventBody) =>
    tracing.observe({ ...body, threadId: "t1", runId, seq: ++seq } as RunEvent);
  return { exporter, tell, errors };
}

const step = { step: 1, latencyMs: 40, inputTokens: 120, outputTokens: 8, costUsd: 0 };
const waiting = (given: Array<{ userId: string; at: string }>) => ({
  type: "loop_interrupt" as const,
  interruptId: `i-${given.length}`,
  interruptType: "confirm_risky" as const,
  reason: "restart_service is high risk",
  calls: [
    {
      callId: "c1",
      tool: "restart_service",
      args: {},
      argsHash: "h",
      risk: "high" as const,
      approvals: { required: 2, given: given.map((g) => ({ ...g, role: "operator" })), distinctFromRequester: true },
    },
  ],
});

describe("run events as OpenTelemetry spans", () => {
  it("puts the model call's retries on its chat span", () => {
    const { exporter, tell } = traced();
    tell("r1", { type: "run_started" });
    tell("r1", { type: "tool_call", callId: "c1", tool: "search_logs", args: {}, model: { ...step, retries: 2 } });
    tell("r1", { type: "assistant_message", messageId: "m1", content: "done", model: { ...step, step: 2 } });
    tell("r1", { type: "run_finished", stopReason: "final_answer", steps: 2, durationMs: 90 });
    const chats = exporter.getFinishedSpans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => span.attributes["opspilot.model.retries"])).toEqual([2, 0]);
    expect(chats.map((span) => span.attributes["gen_ai.response.finish_reasons"])).toEqual([["tool_calls"], ["stop"]]);
  });

  it("tells each four-eyes approval once, in the run it was given in, and the last with the call's result", () => {
    const { exporter, tell } = traced();
    tell("r1", { type: "run_started" });
    tell("r1", waiting([]));
    tell("r1", { type: "run_finished", stopReason: "interrupted", steps: 1, durationMs: 10 });
    tell("r2", { type: "run_started", resumed: true });
    tell("r2", waiting([{ userId: "olga", at: "2026-12-03T10:00:00.000Z" }]));
    tell("r2", { type: "run_finished", stopReason: "interrupted", steps: 1, durationMs: 10 });
    tell("r3", { type: "run_started", resumed: true });
    tell("r3", {
      type: "tool_result",
      callId: "c1",
      tool: "restart_service",
      ok: true,
      summary: "restarted",
      durationMs: 5,
      decision: { action: "approve", by: "ivan", approvers: ["olga", "ivan"] },
    });
    tell("r3", { type: "run_finished", stopReason: "final_answer", steps: 2, durationMs: 10 });
    const runs = exporter.getFinishedSpans().filter((span) => span.name === "invoke_agent opspilot");
    const told = runs.map((span) =>
      span.events.map(
        (event) =>
          `${event.name}${event.attributes?.["opspilot.approval.by"] ? ` ${event.attributes["opspilot.approval.by"]}` : ""}`,
      ),
    );
    expect(told).toEqual([["pause"], ["resume", "approval olga", "pause"], ["resume", "approval ivan"]]);
    expect(runs[1]!.events[1]!.attributes).toMatchObject({
      "opspilot.approval.given": 1,
      "opspilot.approval.required": 2,
    });
  });

  it("keeps a paused call's args for its result in capture mode, and forgets them when the thread's run ends", () => {
    const { exporter, tell } = traced(true);
    tell("r1", { type: "run_started" });
    tell("r1", {
      type: "tool_call",
      callId: "c1",
      tool: "search_logs",
      args: { service: "payment-service" },
      model: step,
    });
    tell("r1", { type: "run_finished", stopReason: "interrupted", steps: 1, durationMs: 10 });
    tell("r2", { type: "run_started", resumed: true });
    tell("r2", {
      type: "tool_result",
      callId: "c1",
      tool: "search_logs",
      ok: true,
      summary: "3 errors",
      durationMs: 5,
    });
    tell("r2", { type: "run_finished", stopReason: "final_answer", steps: 1, durationMs: 10 });
    const [tool] = exporter.getFinishedSpans().filter((span) => span.name === "execute_tool search_logs");
    expect(tool!.attributes["gen_ai.tool.call.arguments"]).toBe(JSON.stringify({ service: "payment-service" }));
    expect(tool!.attributes["gen_ai.tool.call.result"]).toBe("3 errors");
    // Without capture, neither leaves.
    const plain = traced(false);
    plain.tell("r1", { type: "run_started" });
    plain.tell("r1", { type: "tool_call", callId: "c1", tool: "search_logs", args: { service: "x" }, model: step });
    plain.tell("r1", { type: "tool_result", callId: "c1", tool: "search_logs", ok: true, summary: "3", durationMs: 5 });
    plain.tell("r1", { type: "run_finished", stopReason: "final_answer", steps: 1, durationMs: 10 });
    const [bare] = plain.exporter.getFinishedSpans().filter((span) => span.name === "execute_tool search_logs");
    expect(Object.keys(bare!.attributes).filter((key) => key.includes("arguments") || key.includes("result"))).toEqual(
      [],
    );
  });
});
