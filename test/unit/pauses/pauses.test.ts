import { describe, expect, it } from "vitest";
import BetterSqlite3 from "better-sqlite3";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import { createDemoTools, OpsStore } from "../../../src/demo/index.js";
import { createHarness, shape } from "../../fixtures/harness.js";
import { Timeline, testTools } from "../../fixtures/test-tools.js";

const pauseOf = (events: RunEvent[]) =>
  events.find((event) => event.type === "loop_interrupt") as unknown as PauseValue;

describe("pauses and resume", () => {
  it("records the search, pauses for the missing environment, and finishes after the user gives it", async () => {
    const ops = new OpsStore(new BetterSqlite3(":memory:"));
    const harness = createHarness({
      tools: createDemoTools(ops),
      script: [
        callsMessage([
          { name: "search_resource", args: { query: "支付" }, id: "r1" },
          { name: "search_logs", args: { service: "payment-service", level: "ERROR" }, id: "l1" },
        ]),
        answerMessage("支付服务最近的错误已列出。"),
      ],
    });
    const paused = await harness.ask("看看支付服务最近报错");
    expect(shape(paused.messages)).toEqual(["human", "ai:search_resource+search_logs", "tool:search_resource:ok"]);
    const pause = pauseOf(paused.events);
    expect(pause).toMatchObject({
      interruptType: "params_required",
      calls: [
        {
          callId: "l1",
          tool: "search_logs",
          args: { service: "payment-service", level: "ERROR" },
          missing: [{ name: "environment", enum: ["prod", "staging"] }],
        },
      ],
    });
    expect(paused.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
    expect((await harness.runtime.getThread(paused.threadId, harness.user)).status).toBe("interrupted");

    const resumed = await harness.resume(paused.threadId, {
      decisions: [
        { callId: "l1", action: "approve", argsHash: pause.calls[0]!.argsHash, params: { environment: "prod" } },
      ],
    });
    expect(shape(resumed.messages)).toEqual([
      "human",
      "ai:search_resource+search_logs",
      "tool:search_resource:ok",
      "tool:search_logs:ok",
      "ai",
    ]);
    expect(resumed.events.map((event) => event.type)).toEqual([
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(resumed.events.at(-1)).toMatchObject({ stopReason: "final_answer" });
    const logs = JSON.parse(String(resumed.messages[3]!.content));
    expect(logs.data.environment).toBe("prod");
    const records = await harness.storage.threadRecords(paused.threadId);
    expect(records.toolCalls.map((call) => call.call_id)).toEqual(["r1", "l1"]);
    expect(harness.model.calls).toHaveLength(2);
  });

  it("runs an approved risky call once with the frozen args, asking the model only for the answer", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      tools: testTools({ writes }),
      script: [
        callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
        answerMessage("Restarted."),
      ],
    });
    const paused = await harness.ask("restart pay");
    const pause = pauseOf(paused.events);
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ callId: "w1", tool: "write_high", args: { target: "pay", environment: "prod" }, risk: "high" }],
    });
    expect(harness.model.calls).toHaveLength(1);
    const resumed = await harness.resume(paused.threadId, {
      decisions: [{ callId: "w1", action: "approve", argsHash: pause.calls[0]!.argsHash }],
    });
    expect(writes).toEqual([`write_high:pay:prod:${paused.threadId}:w1`]);
    expect(harness.model.calls).toHaveLength(2);
    expect(resumed.events.at(-1)).toMatchObject({ stopReason: "final_answer" });
  });

  it("writes a rejected_by_user observation with the user's message and answers", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      tools: testTools({ writes }),
      script: [
        callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
        answerMessage("I did not restart it."),
      ],
    });
    const paused = await harness.ask("restart pay");
    const resumed = await harness.resume(paused.threadId, {
      decisions: [{ callId: "w1", action: "reject", message: "not during peak hours" }],
    });
    expect(writes).toEqual([]);
    expect(JSON.parse(String(resumed.messages[2]!.content))).toEqual({
      ok: false,
      errorCode: "rejected_by_user",
      message: "The user rejected this write_high call: not during peak hours",
      source: { tool: "write_high" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(String(resumed.messages.at(-1)!.content)).toBe("I did not restart it.");
  });

  it("runs the edited args, and refuses an edit that fails the schema", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      tools: testTools({ writes }),
      script: [
        callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
        answerMessage("Done on staging."),
      ],
    });
    const paused = await harness.ask("restart pay");
    await expect(
      harness.runtime.resumeRun({
        threadId: paused.threadId,
        user: harness.user,
        resume: { decisions: [{ callId: "w1", action: "edit", args: { target: "pay", environment: "moon" } }] },
      }),
    ).rejects.toThrow(/Invalid arguments for write_high: environment/);
    await harness.resume(paused.threadId, {
      decisions: [{ callId: "w1", action: "edit", args: { target: "pay", environment: "staging" } }],
    });
    expect(writes).toEqual([`write_high:pay:staging:${paused.threadId}:w1`]);
    const { decisions } = await harness.storage.threadRecords(paused.threadId);
    expect(decisions.map((d) => [d.call_id, d.action, d.args_hash_before === d.args_hash_after])).toEqual([
      ["w1", "edit", false],
    ]);
  });

  it("refuses mismatched hashes, unknown ids, partial decisions and resumes of a thread that is not paused, changing nothing", async () => {
    const harness = createHarness({
      tools: testTools(),
      options: { writesPerStep: 2 },
      script: [
        callsMessage([
          { name: "write_high", args: { target: "a", environment: "prod" }, id: "w1" },
          { name: "write_high", args: { target: "b", environment: "prod" }, id: "w2" },
        ]),
        answerMessage("ok"),
      ],
    });
    const paused = await harness.ask("restart a and b");
    const before = await harness.graph.getState({ configurable: { thread_id: paused.threadId } });
    const resume = (value: unknown) =>
      harness.runtime.resumeRun({ threadId: paused.threadId, user: harness.user, resume: value });
    await expect(
      resume({
        decisions: [
          { callId: "w1", action: "approve", argsHash: "0".repeat(64) },
          { callId: "w2", action: "approve" },
        ],
      }),
    ).rejects.toThrow(/argsHash mismatch for call w1/);
    await expect(resume({ decisions: [{ callId: "w9", action: "approve" }] })).rejects.toThrow(
      "Unknown call id w9; waiting calls: w1, w2.",
    );
    await expect(resume({ decisions: [{ callId: "w1", action: "approve" }] })).rejects.toThrow(
      "No decision for waiting call(s): w2; answer every waiting call.",
    );
    await expect(resume({ decisions: "yes" })).rejects.toThrow(/Malformed resume value/);
    await expect(
      resume({
        decisions: [
          { callId: "w1", action: "approve", args: { target: "c" } },
          { callId: "w2", action: "approve" },
        ],
      }),
    ).rejects.toThrow(/approve takes no args/);
    const after = await harness.graph.getState({ configurable: { thread_id: paused.threadId } });
    expect(after.values).toEqual(before.values);
    expect(after.config.configurable?.checkpoint_id).toBe(before.config.configurable?.checkpoint_id);

    const idle = await harness.ask("hello");
    await expect(
      harness.runtime.resumeRun({
        threadId: idle.threadId,
        user: harness.user,
        resume: { decisions: [{ callId: "x", action: "approve" }] },
      }),
    ).rejects.toThrow(/is not waiting for input/);
  });

  it("records a parallel call's result before a mid-run question and does not run it again on resume", async () => {
    const timeline = new Timeline();
    const harness = createHarness({
      tools: testTools({ timeline }),
      script: [
        callsMessage([
          { name: "read_a", args: { query: "x" }, id: "r1" },
          { name: "ask_midway", args: {}, id: "m1" },
        ]),
        answerMessage("Ticket is open."),
      ],
    });
    const paused = await harness.ask("check ticket");
    expect(shape(paused.messages)).toEqual(["human", "ai:read_a+ask_midway", "tool:read_a:ok"]);
    const pause = pauseOf(paused.events);
    expect(pause).toMatchObject({
      interruptType: "params_required",
      reason: "The change needs a ticket number.",
      calls: [{ callId: "m1", missing: [{ name: "ticket", description: "Change ticket number" }] }],
    });
    const resumed = await harness.resume(paused.threadId, {
      decisions: [{ callId: "m1", action: "approve", params: { ticket: "CHG-42" } }],
    });
    expect(shape(resumed.messages)).toEqual([
      "human",
      "ai:read_a+ask_midway",
      "tool:read_a:ok",
      "tool:ask_midway:ok",
      "ai",
    ]);
    expect(timeline.entries.filter((entry) => entry.tool === "read_a" && entry.event === "start")).toHaveLength(1);
    expect(JSON.parse(String(resumed.messages[3]!.content)).data).toEqual({ ticket: "CHG-42", status: "open" });
  });

  it("runs a write that asked for the user mid-run once it has the answer", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      tools: testTools({ writes }),
      script: [
        callsMessage([{ name: "change_with_ticket", args: { target: "db" }, id: "t1" }]),
        answerMessage("Changed."),
      ],
    });
    const paused = await harness.ask("change db");
    expect(pauseOf(paused.events)).toMatchObject({
      interruptType: "params_required",
      calls: [{ callId: "t1", missing: [{ name: "ticket" }] }],
    });
    expect(await harness.storage.getEntry(paused.threadId, "t1")).toBeUndefined();
    const resumed = await harness.resume(paused.threadId, {
      decisions: [{ callId: "t1", action: "approve", params: { ticket: "CHG-7" } }],
    });
    expect(shape(resumed.messages)).toEqual(["human", "ai:change_with_ticket", "tool:change_with_ticket:ok", "ai"]);
    expect(writes).toEqual([`change_with_ticket:db:CHG-7:${paused.threadId}:t1`]);
    expect(await harness.storage.getEntry(paused.threadId, "t1")).toMatchObject({ state: "finished" });
  });

  it("ends a pause on cancel: waiting calls get cancelled results and the model is not asked again", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      tools: testTools({ writes }),
      script: [
        callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
        answerMessage("Next question answered."),
      ],
    });
    const paused = await harness.ask("restart pay");
    expect(await harness.runtime.cancelRun(paused.threadId, harness.user)).toBe(true);
    const messages = (await harness.state(paused.threadId)).messages;
    expect(shape(messages)).toEqual(["human", "ai:write_high", "tool:write_high:cancelled", "ai"]);
    expect(String(messages.at(-1)!.content)).toContain("The run was cancelled.");
    const events = await harness.runtime.eventsAfter(paused.threadId, harness.user, paused.events.at(-1)!.seq);
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(events.at(-1)).toMatchObject({ stopReason: "cancelled" });
    expect(writes).toEqual([]);
    expect(harness.model.calls).toHaveLength(1);
    expect((await harness.runtime.getThread(paused.threadId, harness.user)).status).toBe("idle");
    expect(await harness.runtime.cancelRun(paused.threadId, harness.user)).toBe(false);
    const next = await harness.askOn(paused.threadId, "anything else?");
    expect(next.events.at(-1)).toMatchObject({ stopReason: "final_answer" });
  });

  it("excludes the time spent waiting for the user from the wall-time limit", async () => {
    const harness = createHarness({
      tools: testTools(),
      script: [
        callsMessage([{ name: "write_high", args: { target: "a", environment: "prod" }, id: "w1" }]),
        callsMessage([{ name: "read_a", args: { query: "a" } }]),
        answerMessage("ok"),
      ],
      options: { maxWallTimeMs: 500 },
    });
    const paused = await harness.ask("restart a");
    await new Promise((resolve) => setTimeout(resolve, 700));
    const resumed = await harness.resume(paused.threadId, { decisions: [{ callId: "w1", action: "approve" }] });
    expect(resumed.events.at(-1)).toMatchObject({ stopReason: "final_answer", steps: 3 });
  });
});
