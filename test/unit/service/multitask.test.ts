import { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { queuedViews } from "../../../src/service/queue/queued-views.js";
import { MultitaskStrategySchema } from "../../../src/service/runtime/multitask-strategy.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import { createHarness } from "../../fixtures/harness.js";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";

describe("queued message views", () => {
  it("numbers pending messages in the order they run and leaves a refused one unnumbered with its reason", () => {
    const base = { threadId: "t", userId: "ana", role: "operator", queuedAt: Date.UTC(2025, 0, 2, 3, 4, 5) };
    const views = queuedViews([
      { ...base, messageId: "m1", strategy: "interrupt", message: "stop", status: "pending" },
      {
        ...base,
        messageId: "m2",
        strategy: "enqueue",
        message: "over quota",
        status: "failed",
        failure: { code: "quota_exceeded", message: "Daily runs spent." },
      },
      { ...base, messageId: "m3", strategy: "enqueue", message: "later", status: "pending" },
    ]);
    expect(views).toEqual([
      {
        messageId: "m1",
        content: "stop",
        strategy: "interrupt",
        position: 1,
        queuedAt: "2025-01-02T03:04:05.000Z",
        userId: "ana",
      },
      {
        messageId: "m2",
        content: "over quota",
        strategy: "enqueue",
        queuedAt: "2025-01-02T03:04:05.000Z",
        userId: "ana",
        failed: { code: "quota_exceeded", message: "Daily runs spent." },
      },
      {
        messageId: "m3",
        content: "later",
        strategy: "enqueue",
        position: 2,
        queuedAt: "2025-01-02T03:04:05.000Z",
        userId: "ana",
      },
    ]);
  });

  it("accepts the three strategy names and nothing else", () => {
    expect(["reject", "enqueue", "interrupt"].map((name) => MultitaskStrategySchema.parse(name))).toEqual([
      "reject",
      "enqueue",
      "interrupt",
    ]);
    expect(MultitaskStrategySchema.safeParse("rollback").success).toBe(false);
  });
});

describe("interrupt on a pause", () => {
  it("pairs every call id: the waiting write is rejected as superseded, and the model sees a paired history", async () => {
    const harness = createHarness({
      script: [
        callsMessage([
          { name: "read_a", args: { query: "x" }, id: "call_read" },
          { name: "write_high", args: { target: "payment", environment: "prod" }, id: "call_write" },
        ]),
        answerMessage("here is the new answer"),
      ],
    });
    try {
      const { threadId, events } = await harness.ask("look and restart");
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
      const posted = await harness.runtime.postMessage({
        threadId,
        message: "forget it, just answer",
        user: harness.user,
        multitaskStrategy: "interrupt",
      });
      if (posted.kind !== "started") throw new Error("expected the interrupting message to start");
      const run = await collectEvents(posted.events);
      expect(run.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
      expect(harness.violations).toEqual([]);
      const results = (await harness.state(threadId)).messages.filter((message) => ToolMessage.isInstance(message));
      const byCall = new Map(results.map((message) => [message.tool_call_id, JSON.parse(String(message.content))]));
      expect(results).toHaveLength(2);
      expect(byCall.get("call_write")).toMatchObject({
        ok: false,
        errorCode: "rejected_by_user",
        message: "The user rejected this write_high call: superseded by a new message",
      });
      expect(harness.model.calls.at(-1)!.messages.at(-1)!.content).toBe("forget it, just answer");
    } finally {
      harness.close();
    }
  });
});
