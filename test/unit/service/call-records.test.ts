import { describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../fixtures/scripted-model.js";
import { wireLoop } from "../../../src/app/wire-loop.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import type { Storage } from "../../../src/storage/types.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { createHarness } from "../../fixtures/harness.js";
import { testTools } from "../../fixtures/test-tools.js";

type Row = Record<string, unknown>;
const callRows = (rows: Row[]) =>
  rows.map((row) => [row.call_id, row.tool, row.outcome, row.error_code, row.args_summary]);

describe("call records", () => {
  it("records every call id of a run cancelled during a pause", async () => {
    const harness = createHarness({
      tools: testTools(),
      script: [
        callsMessage([
          { name: "read_a", args: { query: "pay" }, id: "r1" },
          { name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" },
          { name: "write_high", args: { target: "ledger", environment: "prod" }, id: "w2" },
        ]),
      ],
    });
    const paused = await harness.ask("restart pay and ledger");
    expect(paused.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
    expect(await harness.runtime.cancelRun(paused.threadId, harness.user)).toBe(true);
    const records = await harness.storage.threadRecords(paused.threadId);
    expect(callRows(records.toolCalls)).toEqual([
      ["r1", "read_a", "ok", null, "query=pay"],
      // Writes run one at a time: the second was skipped before the pause, the first waited in it.
      ["w2", "write_high", "skipped", "skipped", "target=ledger, environment=prod"],
      ["w1", "write_high", "cancelled", "cancelled", "target=pay, environment=prod"],
    ]);
    expect(records.runs).toMatchObject([{ stop_reason: "cancelled", pauses: 1 }]);
    await harness.close();
  });

  it("records the decision with the answering user and role", async () => {
    const harness = createHarness({
      tools: testTools(),
      user: { id: "alice", role: "admin" },
      script: [
        callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
        answerMessage("Restarted."),
      ],
    });
    const paused = await harness.ask("restart pay");
    await harness.resume(paused.threadId, { decisions: [{ callId: "w1", action: "reject", message: "not now" }] });
    const records = await harness.storage.threadRecords(paused.threadId);
    expect(records.decisions).toMatchObject([{ call_id: "w1", action: "reject", user_id: "alice", role: "admin" }]);
    expect(callRows(records.toolCalls)).toEqual([
      ["w1", "write_high", "rejected", "rejected_by_user", "target=pay, environment=prod"],
    ]);
    await harness.close();
  });

  it("records the calls finish_run closes without running them", async () => {
    const read = (query: string) => callsMessage([{ name: "read_a", args: { query } }]);
    const harness = createHarness({ script: [read("x"), read("x"), read("x"), answerMessage("never")] });
    const { threadId, events } = await harness.ask("loop");
    expect(events.at(-1)).toMatchObject({ stopReason: "loop_detected" });
    const records = await harness.storage.threadRecords(threadId);
    expect(records.toolCalls.map((row) => [row.outcome, row.error_code, row.args_summary])).toEqual([
      ["ok", null, "query=x"],
      ["ok", null, "query=x"],
      ["skipped", "skipped", "query=x"],
    ]);
    await harness.close();
  });

  it("records the calls an unexpected error left unanswered", async () => {
    const backend = openSqlite(":memory:");
    let failed = false;
    // The database refuses one call's record: the step fails and recovery must close both calls.
    const storage = new Proxy(backend.storage, {
      get(target, property, receiver) {
        if (property === "recordToolCalls")
          return async (calls: Parameters<Storage["recordToolCalls"]>[0]) => {
            if (!failed && calls.some((call) => call.callId === "b1")) {
              failed = true;
              throw new Error("disk I/O error");
            }
            return target.recordToolCalls(calls);
          };
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const { runtime } = wireLoop({
      model: new ScriptedChatModel({
        script: [
          callsMessage([
            { name: "read_a", args: { query: "one" }, id: "a1" },
            { name: "read_b", args: { query: "two" }, id: "b1" },
          ]),
        ],
      }),
      registry: new ToolRegistry(testTools()),
      storage,
      checkpointer: new MemorySaver(),
      logger: { error: () => {} },
    });
    const user = { id: "tester", role: "operator" };
    const threadId = await runtime.createThread(user);
    const events = await collectEvents(await runtime.startRun({ threadId, message: "read both", user }));
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "error" });
    const records = await backend.storage.threadRecords(threadId);
    expect(callRows(records.toolCalls)).toEqual([
      ["a1", "read_a", "skipped", "internal", "query=one"],
      ["b1", "read_b", "skipped", "internal", "query=two"],
    ]);
    backend.close();
  });
});
