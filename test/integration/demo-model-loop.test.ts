import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { checkPairing, pairingHolds } from "../../src/graph/calls/pairing.js";
import { demoUser as user, useDemoApp } from "../fixtures/demo-app.js";

const demo = useDemoApp("opspilot-demo-");
const { ask, resume } = demo;

const pauseOf = (events: RunEvent[]) =>
  events.find((event) => event.type === "loop_interrupt") as RunEvent & PauseValue;
const toolCalls = (events: RunEvent[]) =>
  events.filter((event) => event.type === "tool_call").map((event) => (event as { tool: string }).tool);
const answerOf = (events: RunEvent[]) =>
  (events.filter((event) => event.type === "assistant_message").at(-1) as { content: string }).content;

describe.each([
  ["Chinese", "看看支付服务最近报错，顺便对照一下文档里的处理建议", "【演示模型】"],
  [
    "English",
    "Check the payment service's recent errors and compare them with the handling advice in the runbooks",
    "[demo model]",
  ],
])("the offline demo model on the seed question in %s", (_language, question, label) => {
  it("searches in parallel, asks for the environment, and answers from the real dataset after the resume", async () => {
    const first = await ask(question);
    expect(first.events.map((event) => event.type)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_call",
      "loop_interrupt",
      "run_finished",
    ]);
    expect(toolCalls(first.events)).toEqual(["search_resource", "search_docs", "search_logs"]);
    const pause = pauseOf(first.events);
    expect(pause).toMatchObject({
      interruptType: "params_required",
      calls: [
        {
          tool: "search_logs",
          args: { service: "payment-service" },
          missing: [{ name: "environment", enum: ["prod", "staging"] }],
        },
      ],
    });

    const second = await resume(first.threadId, [
      {
        callId: pause.calls[0]!.callId,
        action: "approve",
        argsHash: pause.calls[0]!.argsHash,
        params: { environment: "prod" },
      },
    ]);
    expect(second.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    const answer = answerOf(second);
    expect(answer.startsWith(label)).toBe(true);
    for (const fact of ["PAY-5031", "24", "DB_POOL_EXHAUSTED", "9", "RB-003"]) expect(answer).toContain(fact);
    const thread = await demo.app.runtime.getThread(first.threadId, user);
    expect(thread.status).toBe("idle");
  });
});

describe("the offline demo model asked to act", () => {
  it("pauses a restart for approval and records it exactly once", async () => {
    const first = await ask("restart the payment service in prod");
    const pause = pauseOf(first.events);
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ tool: "restart_service", args: { service: "payment-service", environment: "prod" }, risk: "high" }],
    });
    const before = await demo.app.ops.countActions({
      action: "restart",
      service: "payment-service",
      environment: "prod",
    });
    const second = await resume(first.threadId, [
      { callId: pause.calls[0]!.callId, action: "approve", argsHash: pause.calls[0]!.argsHash },
    ]);
    expect(second.find((event) => event.type === "tool_result")).toMatchObject({ tool: "restart_service", ok: true });
    expect(
      await demo.app.ops.countActions({ action: "restart", service: "payment-service", environment: "prod" }),
    ).toBe(before + 1);
    await expect(
      demo.app.runtime.resumeRun({
        threadId: first.threadId,
        user,
        resume: { decisions: [{ callId: pause.calls[0]!.callId, action: "approve" }] },
      }),
    ).rejects.toThrow(/not waiting/);
    expect(
      await demo.app.ops.countActions({ action: "restart", service: "payment-service", environment: "prod" }),
    ).toBe(before + 1);
  });

  it("asks for the environment of 重启支付服务 together with the approval, and keeps pairing", async () => {
    const first = await ask("重启支付服务");
    const pause = pauseOf(first.events);
    expect(pause.calls[0]).toMatchObject({ tool: "restart_service", risk: "high", missing: [{ name: "environment" }] });
    const second = await resume(first.threadId, [
      { callId: pause.calls[0]!.callId, action: "approve", params: { environment: "staging" } },
    ]);
    expect(second.at(-1)).toMatchObject({ stopReason: "final_answer" });
    expect(
      await demo.app.ops.countActions({ action: "restart", service: "payment-service", environment: "staging" }),
    ).toBe(1);
    const state = await demo.app.graph.getState({ configurable: { thread_id: first.threadId } });
    expect(pairingHolds(checkPairing(state.values.messages))).toBe(true);
  });
});
