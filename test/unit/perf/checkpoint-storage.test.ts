import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../../src/models/scripted-model.js";
import { wireLoop } from "../../../src/app/assemble.js";
import { openSqlite, type SqliteBackend } from "../../../src/storage/open-sqlite.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { collectEvents } from "../../../src/service/create-runtime.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import type { InterruptValue } from "../../../src/contracts/pause.js";
import type { AgentStateType } from "../../../src/graph/state.js";
import { testTools } from "../../fixtures/test-tools.js";
import { readSteps, scriptedLoop } from "../../fixtures/read-steps.js";
import BetterSqlite3 from "better-sqlite3";
import { ChannelSqliteSaver } from "../../../src/storage/sqlite-checkpointer.js";
import { SqliteStorage } from "../../../src/storage/sqlite-storage.js";

const user = { id: "tester", role: "operator" };

/** Rows of the checkpoint tables that belong to a thread. */
function rows(backend: SqliteBackend, threadId: string) {
  const count = (table: string) =>
    (backend.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE thread_id = ?`).get(threadId) as { n: number }).n;
  return { checkpoints: count("checkpoints"), writes: count("writes"), blobs: count("opspilot_checkpoint_blobs") };
}

/** Counts the checkpointer's puts and putWrites while a function runs. */
async function countSaves(backend: SqliteBackend, run: () => Promise<unknown>) {
  const saver = backend.checkpointer;
  const counts = { put: 0, putWrites: 0 };
  const put = saver.put.bind(saver);
  const putWrites = saver.putWrites.bind(saver);
  saver.put = (...args) => ((counts.put += 1), put(...args));
  saver.putWrites = (...args) => ((counts.putWrites += 1), putWrites(...args));
  try {
    await run();
  } finally {
    saver.put = put;
    saver.putWrites = putWrites;
  }
  return counts;
}

describe("checkpoint storage per step", () => {
  it("serializes a message list item by item to exactly the bytes the serializer writes for the whole list", async () => {
    const backend = openSqlite(":memory:");
    const messages = [
      new HumanMessage({ id: "h1", content: '看看支付服务 \u2028 "quoted"' }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "read_a", args: { query: "x" } }] }),
      new ToolMessage({ id: "t1", tool_call_id: "c1", content: '{"ok":true}', artifact: { ok: true } }),
    ];
    const saver = backend.checkpointer as unknown as { dumpsList(list: unknown[]): Promise<[string, Uint8Array]> };
    const whole = await new JsonPlusSerializer().dumpsTyped(messages);
    expect(await saver.dumpsList(messages)).toEqual(whole);
    // Again from the per-item bytes it kept, and with one item more.
    expect(await saver.dumpsList(messages)).toEqual(whole);
    const longer = [...messages, new AIMessage({ id: "a2", content: "done" })];
    expect(await saver.dumpsList(longer)).toEqual(await new JsonPlusSerializer().dumpsTyped(longer));
    expect(await saver.dumpsList([])).toEqual(await new JsonPlusSerializer().dumpsTyped([]));
    backend.close();
  });

  it("takes two checkpoints per tool step (the model's turn, the tools) and keeps no superseded pending writes", async () => {
    const backend = openSqlite(":memory:");
    const steps = 4;
    const { graph } = scriptedLoop(backend, readSteps(steps));
    const config = { configurable: { thread_id: "t1", userId: user.id, role: user.role } };
    const saves = await countSaves(backend, () => graph.invoke({ messages: [new HumanMessage("go")] }, config));
    // The input checkpoint, then call_model and execute_tools per step, then the answering call_model.
    expect(saves.put).toBe(1 + 1 + 2 * steps + 1);
    expect(saves.putWrites).toBe(1 + 2 * steps + 1);
    const state = (await graph.getState(config)).values as AgentStateType;
    expect(state.messages.filter((message) => ToolMessage.isInstance(message))).toHaveLength(steps);
    // Every checkpoint folded its parent's writes in; the last has none pending.
    expect(rows(backend, "t1").writes).toBe(0);
    backend.close();
  });

  it("compacts a paused thread to its latest checkpoint with its pause, resumes it and compacts it again", async () => {
    const backend = openSqlite(":memory:");
    const { runtime, graph } = scriptedLoop(backend, [
      callsMessage([{ name: "read_a", args: { query: "before" }, id: "r1" }]),
      callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
      answerMessage("Restarted pay."),
    ]);
    const threadId = await runtime.createThread(user);
    const paused = await collectEvents(await runtime.startRun({ threadId, message: "restart pay", user }));
    expect(paused.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
    const atPause = rows(backend, threadId);
    expect(atPause.checkpoints).toBe(1);
    // The pause itself is a pending write of the latest checkpoint, and stays.
    const channels = backend.db
      .prepare("SELECT channel FROM writes WHERE thread_id = ?")
      .all(threadId)
      .map((row) => (row as { channel: string }).channel);
    expect(channels).toContain("__interrupt__");
    // Long values are kept compressed and read back whole.
    const compressedTypes = backend.db
      .prepare("SELECT type FROM opspilot_checkpoint_blobs WHERE thread_id = ? AND type LIKE '%+br'")
      .all(threadId);
    expect(compressedTypes.length).toBeGreaterThan(0);
    const view = await runtime.getThread(threadId, user);
    expect(view.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(await runtime.getResult(threadId, user, "r1")).toMatchObject({ callId: "r1", tool: "read_a" });

    const pause = paused.find((event) => event.type === "loop_interrupt") as unknown as InterruptValue;
    const resumed: RunEvent[] = await collectEvents(
      await runtime.resumeRun({
        threadId,
        user,
        resume: { decisions: [{ callId: "w1", action: "approve", argsHash: pause.calls[0]!.argsHash }] },
      }),
    );
    expect(resumed.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(rows(backend, threadId)).toMatchObject({ checkpoints: 1, writes: 0 });
    const state = (await graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType;
    expect(state.messages.at(-1)!.content).toBe("Restarted pay.");
    expect(state.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai", "tool", "ai"]);
    // Every value the latest checkpoint refers to is there, and nothing else.
    const dangling = backend.db
      .prepare(
        `SELECT COUNT(*) AS n FROM opspilot_checkpoint_blobs b WHERE thread_id = ? AND NOT EXISTS (SELECT 1 FROM checkpoints c,
           json_each(json_extract(CAST(c.checkpoint AS TEXT), '$.channel_versions')) v WHERE c.thread_id = b.thread_id
           AND v.key = b.channel AND CAST(v.value AS TEXT) = b.version)`,
      )
      .get(threadId) as { n: number };
    expect(dangling.n).toBe(0);
    const records = await backend.storage.threadRecords(threadId);
    expect(records.runs).toMatchObject([{ stop_reason: "final_answer", pauses: 1 }]);
    expect(records.decisions).toHaveLength(1);
    backend.close();
  });

  it("keeps one checkpoint per thread during a run, and adds about the same bytes at step 40 as at step 1", async () => {
    const backend = openSqlite(":memory:");
    const steps = 40;
    const sizes: Array<{ checkpoints: number; bytes: number }> = [];
    const measure = () => {
      const row = backend.db
        .prepare(
          `SELECT (SELECT COUNT(*) FROM checkpoints) AS checkpoints,
             (SELECT COALESCE(SUM(length(checkpoint) + length(metadata)), 0) FROM checkpoints)
             + (SELECT COALESCE(SUM(length(value)), 0) FROM writes)
             + (SELECT COALESCE(SUM(length(value)), 0) FROM opspilot_checkpoint_blobs) AS bytes`,
        )
        .get() as { checkpoints: number; bytes: number };
      sizes.push(row);
    };
    const { graph } = wireLoop({
      model: new ScriptedChatModel({ script: readSteps(steps), assertCall: () => measure() }),
      registry: new ToolRegistry(testTools()),
      storage: backend.storage,
      checkpointer: backend.checkpointer,
      defaults: { maxSteps: steps + 5, tokenBudget: 1_000_000_000 },
    });
    await graph.invoke(
      { messages: [new HumanMessage("go")] },
      {
        configurable: { thread_id: "long", userId: user.id, role: user.role, maxSteps: steps + 5 },
        recursionLimit: 1_000,
      },
    );
    expect(sizes).toHaveLength(steps + 1);
    expect(sizes.every((size) => size.checkpoints === 1)).toBe(true);
    const added = sizes.slice(1).map((size, i) => size.bytes - sizes[i]!.bytes);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    // Each step adds its own messages and memory entry, never a copy of the thread so far.
    expect(mean(added.slice(-5))).toBeLessThan(1.5 * mean(added.slice(0, 5)));
    backend.close();
  });

  it("reads the new latest checkpoint when the one it was reading is superseded meanwhile", async () => {
    const backend = openSqlite(":memory:");
    const { graph } = scriptedLoop(backend, [answerMessage("First."), answerMessage("Second.")]);
    const config = { configurable: { thread_id: "t3", userId: user.id, role: user.role } };
    await graph.invoke({ messages: [new HumanMessage("one")] }, config);
    const saver = backend.checkpointer as unknown as { withValues(tuple: unknown): Promise<unknown> };
    const withValues = saver.withValues.bind(saver);
    let raced = false;
    // Between reading the checkpoint row and its values, another run saves the next checkpoint.
    saver.withValues = async (tuple) => {
      if (!raced) {
        raced = true;
        await graph.invoke({ messages: [new HumanMessage("two")] }, config);
      }
      return withValues(tuple);
    };
    const state = (await graph.getState(config)).values as AgentStateType;
    expect(raced).toBe(true);
    expect(state.messages.map((message) => message.content)).toEqual(["one", "First.", "two", "Second."]);
    backend.close();
  });

  it("reports what compacting a full-history thread removed, and nothing the second time", async () => {
    const db = new BetterSqlite3(":memory:");
    const backend = {
      db,
      checkpointer: new ChannelSqliteSaver(db),
      storage: new SqliteStorage(db),
      close: () => db.close(),
    };
    const { graph } = scriptedLoop(backend, [
      callsMessage([{ name: "read_a", args: { query: "x" } }]),
      answerMessage("Done."),
    ]);
    const config = { configurable: { thread_id: "t2", userId: user.id, role: user.role } };
    await graph.invoke({ messages: [new HumanMessage("go")] }, config);
    const before = rows(backend, "t2");
    const report = await backend.storage.compactThread("t2");
    expect(report.checkpoints).toBe(before.checkpoints - 1);
    expect(report.blobs).toBeGreaterThan(0);
    expect(await backend.storage.compactThread("t2")).toEqual({ checkpoints: 0, writes: 0, blobs: 0 });
    const state = (await graph.getState(config)).values as AgentStateType;
    expect(state.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
    backend.close();
  });
});
