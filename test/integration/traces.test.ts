import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { attrs, startCollector } from "../fixtures/otlp-collector.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
const CANARY = "tok-canary-7f3a9b00";
const USER = { id: "olga", role: "operator" };

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** The seed question with its pause and its resume, on an app whose traces go to `tracingEnv`. */
async function seedRun(tracingEnv: Record<string, string>) {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-traces-"));
  directories.push(directory);
  const logged: string[] = [];
  const app = createApp({
    // A secret the process holds: no span may carry it.
    env: loadEnv({ OPSPILOT_API_TOKENS: `${CANARY}=olga:operator` }),
    dbPath: join(directory, "opspilot.sqlite"),
    model: new DemoChatModel(),
    tracingEnv,
    logger: { error: (message: string) => logged.push(message) },
  });
  const started = Date.now();
  const threadId = await app.runtime.createThread(USER);
  const first = await collectEvents(await app.runtime.startRun({ threadId, message: SEED, user: USER }));
  const pause = first.find((event) => event.type === "loop_interrupt") as Extract<RunEvent, { type: "loop_interrupt" }>;
  const second = await collectEvents(
    await app.runtime.resumeRun({
      threadId,
      user: USER,
      resume: {
        decisions: pause.calls.map((call) => ({
          callId: call.callId,
          action: "approve",
          argsHash: call.argsHash,
          ...(call.missing?.length ? { params: { environment: "prod" } } : {}),
        })),
      },
    }),
  );
  const elapsedMs = Date.now() - started;
  const closing = Date.now();
  await app.close();
  const answer = second.filter((event) => event.type === "assistant_message").at(-1) as { content: string };
  return { threadId, first, second, pause, elapsedMs, closeMs: Date.now() - closing, answer: answer.content, logged };
}

describe("OpenTelemetry traces", { timeout: 60_000 }, () => {
  it("sends the seed run, its pause and its resume to an OTLP/HTTP collector with the GenAI conventions", async () => {
    const collector = await startCollector("ok");
    try {
      const run = await seedRun({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "opspilot-test",
      });
      const spans = collector.spans();
      expect(new Set(spans.map((span) => span.service))).toEqual(new Set(["opspilot-test"]));
      const agents = spans.filter((span) => span.name === "invoke_agent opspilot");
      expect(agents).toHaveLength(2);
      const [paused, resumed] = agents.map((span) => ({ span, attributes: attrs(span.attributes) }));
      for (const agent of [paused!, resumed!])
        expect(agent.attributes).toMatchObject({
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": "opspilot",
          "gen_ai.conversation.id": run.threadId,
          "opspilot.run.id": run.first[0]!.runId,
        });
      expect(paused!.attributes["opspilot.stop_reason"]).toBe("interrupted");
      expect(resumed!.attributes["opspilot.stop_reason"]).toBe("final_answer");
      // Each run is its own trace; the resumed one links to the run that paused and says so.
      expect(paused!.span.traceId).not.toBe(resumed!.span.traceId);
      expect(resumed!.span.links).toEqual([
        expect.objectContaining({ traceId: paused!.span.traceId, spanId: paused!.span.spanId }),
      ]);
      expect(paused!.span.events?.map((event) => event.name)).toEqual(["pause"]);
      expect(attrs(paused!.span.events![0]!.attributes)["opspilot.interrupt.id"]).toBe(run.pause.interruptId);
      expect(resumed!.span.events?.map((event) => event.name)).toEqual(["resume", "approval"]);

      // One chat span per model call, under its run, with its tokens.
      const modelSteps = [...run.first, ...run.second].filter(
        (event) => (event.type === "tool_call" || event.type === "assistant_message") && event.model,
      );
      const chats = spans.filter((span) => span.name === "chat demo");
      expect(chats).toHaveLength(modelSteps.length);
      for (const chat of chats) {
        const attributes = attrs(chat.attributes);
        expect(attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "opspilot" });
        expect(attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
        expect(agents.map((agent) => agent.spanId)).toContain(chat.parentSpanId);
      }
      // One execute_tool span per tool result, with its call id, in the trace of the run it ran in.
      const results = [...run.first, ...run.second].filter((event) => event.type === "tool_result");
      const tools = spans.filter((span) => span.name.startsWith("execute_tool "));
      expect(tools.map((span) => attrs(span.attributes)["gen_ai.tool.call.id"]).sort()).toEqual(
        results.map((event) => event.callId).sort(),
      );
      for (const tool of tools) {
        const parent = agents.find((agent) => agent.spanId === tool.parentSpanId);
        expect(parent?.traceId).toBe(tool.traceId);
      }
      // Nothing of the conversation leaves without OPSPILOT_OTEL_CAPTURE_CONTENT.
      const sent = collector.bodies.join("\n");
      expect(sent).not.toContain(CANARY);
      expect(sent).not.toContain("payment");
      expect(sent).not.toContain("支付");
      expect(run.logged).toEqual([]);
    } finally {
      await collector.close();
    }
  });

  it("records arguments, results and answers only with OPSPILOT_OTEL_CAPTURE_CONTENT, masked as the events are", async () => {
    const collector = await startCollector("ok");
    try {
      const run = await seedRun({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OPSPILOT_OTEL_CAPTURE_CONTENT: "true",
      });
      const spans = collector.spans();
      const logs = spans.find((span) => span.name === "execute_tool search_logs")!;
      expect(JSON.parse(String(attrs(logs.attributes)["gen_ai.tool.call.arguments"]))).toMatchObject({
        service: "payment-service",
        environment: "prod",
      });
      const answered = spans.filter((span) => attrs(span.attributes)["gen_ai.output.messages"] !== undefined);
      expect(answered).toHaveLength(1);
      expect(String(attrs(answered[0]!.attributes)["gen_ai.output.messages"])).toContain(run.answer.slice(0, 40));
      expect(collector.bodies.join("\n")).not.toContain(CANARY);
    } finally {
      await collector.close();
    }
  });

  it.each(["refuse", "hang"] as const)("runs the same, as fast, when the collector's exports %s", async (mode) => {
    const untraced = await seedRun({});
    const collector = await startCollector(mode);
    try {
      const traced = await seedRun({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      });
      // The same answer (the demo estate's log times follow the clock).
      const timeless = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
      expect(timeless(traced.answer)).toBe(timeless(untraced.answer));
      expect(traced.second.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
      // The exports happen after the run, in the background: the run does not wait on them.
      expect(traced.elapsedMs).toBeLessThan(untraced.elapsedMs + 1_000);
      // Closing gives the last spans a bounded grace, then goes.
      expect(traced.closeMs).toBeLessThan(6_000);
    } finally {
      await collector.close();
    }
  });
});
