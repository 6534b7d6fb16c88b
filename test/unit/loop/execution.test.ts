import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError } from "../../../src/contracts/errors.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import { defineTool } from "../../../src/tools/types.js";
import { createHarness, shape } from "../../fixtures/harness.js";
import { Timeline, testTools } from "../../fixtures/test-tools.js";

const approveAll = (events: Array<{ type: string }>) => {
  const pause = events.find((event) => event.type === "loop_interrupt") as unknown as {
    calls: Array<{ callId: string; argsHash: string }>;
  };
  return {
    decisions: pause.calls.map((call) => ({ callId: call.callId, action: "approve", argsHash: call.argsHash })),
  };
};

describe("execute_tools", () => {
  it("finishes the read before the write starts, and never overlaps two writes", async () => {
    const timeline = new Timeline();
    const harness = createHarness({
      tools: testTools({ timeline, readDelayMs: 60, writeDelayMs: 40 }),
      options: { writesPerStep: 2 },
      script: [
        callsMessage([
          { name: "write_low", args: { target: "a", environment: "prod" } },
          { name: "read_a", args: { query: "x" } },
          { name: "write_low", args: { target: "b", environment: "prod" } },
        ]),
        answerMessage("done"),
      ],
    });
    const { messages } = await harness.ask("do it");
    const writes = timeline.entries.filter((entry) => entry.tool === "write_low");
    expect(writes.map((entry) => entry.event)).toEqual(["start", "end", "start", "end"]);
    expect(timeline.at("read_a", "end")).toBeLessThanOrEqual(writes[0]!.at);
    expect(shape(messages)).toEqual([
      "human",
      "ai:write_low+read_a+write_low",
      "tool:write_low:ok",
      "tool:read_a:ok",
      "tool:write_low:ok",
      "ai",
    ]);
  });

  it("gives every call a cancelled result when cancelled mid-batch, and the thread runs normally after", async () => {
    const harness = createHarness({
      tools: testTools({ readDelayMs: 1_000 }),
      script: [
        callsMessage([
          { name: "read_a", args: { query: "x" } },
          { name: "read_b", args: { query: "y" } },
        ]),
        answerMessage("after cancel"),
      ],
    });
    const threadId = await harness.runtime.createThread(harness.user);
    const stream = await harness.runtime.startRun({ threadId, message: "slow", user: harness.user });
    // Cancelled once both calls are under way (each takes a second), whatever the machine's load.
    const events: RunEvent[] = [];
    for await (const event of stream) {
      events.push(event as RunEvent);
      if (event.type === "tool_call" && events.filter((seen) => seen.type === "tool_call").length === 2)
        void harness.runtime.cancelRun(threadId, harness.user);
    }
    expect(
      events
        .filter((event) => event.type === "tool_result")
        .map((event) => (event as { errorCode?: string }).errorCode),
    ).toEqual(["cancelled", "cancelled"]);
    expect(events.at(-1)).toMatchObject({ stopReason: "cancelled" });
    const next = await harness.askOn(threadId, "again");
    expect(next.events.at(-1)).toMatchObject({ stopReason: "final_answer" });
    expect(shape(next.messages)).toEqual([
      "human",
      "ai:read_a+read_b",
      "tool:read_a:cancelled",
      "tool:read_b:cancelled",
      "ai",
      "human",
      "ai",
    ]);
  });

  it("cancels a running run when the runtime closes, so it ends with a recorded stop", async () => {
    const harness = createHarness({
      tools: testTools({ readDelayMs: 5_000 }),
      script: [callsMessage([{ name: "read_a", args: { query: "x" } }])],
    });
    const threadId = await harness.runtime.createThread(harness.user);
    const events = collectEvents(await harness.runtime.startRun({ threadId, message: "slow", user: harness.user }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await harness.runtime.close();
    const collected = await events;
    expect(collected.at(-1)).toMatchObject({ type: "run_finished", stopReason: "cancelled" });
    expect(shape((await harness.state(threadId)).messages)).toEqual([
      "human",
      "ai:read_a",
      "tool:read_a:cancelled",
      "ai",
    ]);
  });

  it("masks personal data, caps a 1 MB result and keeps the raw result by call id", async () => {
    const harness = createHarness({
      script: [callsMessage([{ name: "big", id: "big1" }]), answerMessage("ok")],
      options: { observationMaxChars: 2_000 },
    });
    const { threadId, messages } = await harness.ask("big");
    const content = String(messages[2]!.content);
    expect(content.length).toBeLessThanOrEqual(2_000);
    expect(content).not.toMatch(/alice@example\.com|13812345678|110101199003071234/);
    expect(content).toContain("[email masked]");
    expect(content).toContain("[phone masked]");
    expect(content).toContain("[id number masked]");
    expect(JSON.parse(content).truncated.originalChars).toBeGreaterThan(1_000_000);
    const raw = await harness.storage.getResult(threadId, "big1");
    expect((raw!.raw as { text: string }).text).toHaveLength(1_000_000);
    // The stored result is the masked text the preview was cut from, whole.
    const { data, truncated } = JSON.parse(content) as { data: string; truncated: { originalChars: number } };
    const stored = JSON.stringify(raw!.raw);
    expect(stored).toHaveLength(truncated.originalChars);
    expect(stored.startsWith(data)).toBe(true);
    expect(stored).not.toMatch(/alice@example\.com|13812345678|110101199003071234/);
  });

  it("times out a hanging tool, retries it once, and reports timeout", async () => {
    const harness = createHarness({ script: [callsMessage([{ name: "hang" }]), answerMessage("ok")] });
    const { messages, events } = await harness.ask("hang");
    expect(JSON.parse(String(messages[2]!.content))).toEqual({
      ok: false,
      errorCode: "timeout",
      message: "hang did not answer within 50 ms.",
      source: { tool: "hang" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((messages[2] as unknown as { artifact: { attempts: number } }).artifact.attempts).toBe(2);
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer" });
  });

  it("retries a transient failure once and never retries a permission error", async () => {
    const attempts: Record<string, number> = { flaky: 0, denied: 0 };
    const flaky = (name: string, error: () => Error) =>
      defineTool({
        name,
        description: name,
        schema: z.object({}),
        readOnly: true,
        risk: "low",
        timeoutMs: 1_000,
        async run() {
          attempts[name]! += 1;
          if (name === "flaky" && attempts[name] === 2) return { fine: true };
          throw error();
        },
      });
    const harness = createHarness({
      tools: [
        flaky("flaky", () => new ToolError("transient", "backend hiccup")),
        flaky("denied", () => new ToolError("permission_denied", "no access")),
      ],
      script: [callsMessage([{ name: "flaky" }, { name: "denied" }]), answerMessage("ok")],
    });
    const { messages } = await harness.ask("try");
    expect(attempts).toEqual({ flaky: 2, denied: 1 });
    expect(shape(messages)).toEqual([
      "human",
      "ai:flaky+denied",
      "tool:flaky:ok",
      "tool:denied:permission_denied",
      "ai",
    ]);
  });

  it("turns a result that is not JSON (a cycle, a BigInt) into an internal observation", async () => {
    const misbehaving = (name: string, value: () => unknown) =>
      defineTool({
        name,
        description: name,
        schema: z.object({}),
        readOnly: true,
        risk: "low",
        timeoutMs: 1_000,
        run: async () => value(),
      });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const harness = createHarness({
      tools: [misbehaving("cycle", () => cyclic), misbehaving("bigint", () => ({ n: 10n }))],
      script: [callsMessage([{ name: "cycle" }, { name: "bigint" }]), answerMessage("Both tools misbehaved.")],
    });
    const { messages, events } = await harness.ask("go");
    expect(shape(messages)).toEqual(["human", "ai:cycle+bigint", "tool:cycle:internal", "tool:bigint:internal", "ai"]);
    expect(JSON.parse(String(messages[2]!.content)).message).toBe("cycle returned a result that is not JSON.");
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer" });
  });

  it("records the run, its steps and its tool calls by thread id", async () => {
    const harness = createHarness({
      script: [callsMessage([{ name: "read_a", args: { query: "x" } }, { name: "explode" }]), answerMessage("ok")],
    });
    const { threadId } = await harness.ask("x");
    const records = await harness.storage.threadRecords(threadId);
    expect(records.runs).toHaveLength(1);
    expect(records.runs[0]).toMatchObject({ stop_reason: "final_answer", steps: 2, user_id: "tester" });
    expect(records.steps.map((step) => step.tool_calls)).toEqual([2, 0]);
    expect(records.toolCalls.map((call) => [call.tool, call.outcome, call.error_code])).toEqual([
      ["read_a", "ok", null],
      ["explode", "error", "internal"],
    ]);
    const summary = await harness.storage.summary({ since: 0, until: Date.now() + 1 });
    expect(summary).toMatchObject({
      runs: 1,
      averageSteps: 2,
      toolCalls: 2,
      toolFailureRate: 0.5,
      stopReasons: { final_answer: 1 },
    });
  });

  it("runs an approved write exactly once per key", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      tools: testTools({ writes }),
      script: [
        callsMessage([{ name: "write_high", args: { target: "svc", environment: "prod" }, id: "w1" }]),
        answerMessage("restarted"),
      ],
    });
    const paused = await harness.ask("restart svc");
    await harness.resume(paused.threadId, approveAll(paused.events));
    expect(writes).toEqual([`write_high:svc:prod:${paused.threadId}:w1`]);
  });
});
