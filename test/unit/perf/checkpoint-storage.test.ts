import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../fixtures/scripted-model.js";
import { wireLoop } from "../../../src/app/wire-loop.js";
import { openSqlite, type SqliteBackend } from "../../../src/storage/sqlite/open-sqlite.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import type { AgentStateType } from "../../../src/graph/state.js";
import { testTools } from "../../fixtures/test-tools.js";
import { readSteps, scriptedLoop } from "../../fixtures/read-steps.js";
import { valuesOf } from "../../fixtures/checkpoints.js";

const user = { id: "tester", role: "operator" };

/** Rows of the checkpoint tables that belong to a thread. */
function rows(backend: SqliteBackend, threadId: string) {
  const count = (table: string) =>
    (backend.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE thread_id = ?`).get(threadId) as { n: number }).n;
  return { checkpoints: count("checkpoints"), writes: count("writes") };
}

describe("checkpoint storage per step", () => {
  it("keeps a checkpoint per node of every step, as LangGraph does, and its history replays", async () => {
    const backend = openSqlite(":memory:");
    const steps = 4;
    const { graph } = scriptedLoop(backend, readSteps(steps));
    const config = { configurable: { thread_id: "t1", userId: user.id, role: user.role } };
    await graph.invoke({ messages: [new HumanMessage("go")] }, config);
    // The input checkpoint, the input applied, then call_model, guard_calls, validate_calls and execute_tools per
    // step, then the answering call_model.
    expect(rows(backend, "t1").checkpoints).toBe(2 + 4 * steps + 1);
    const state = (await graph.getState(config)).values as AgentStateType;
    expect(state.messages.filter((message) => ToolMessage.isInstance(message))).toHaveLength(steps);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    expect(history).toHaveLength(2 + 4 * steps + 1);
    // Newest first: each step's nodes are there by name, and an older checkpoint holds fewer messages.
    expect(history.slice(1, 5).map((snapshot) => snapshot.next[0])).toEqual([
      "call_model",
      "execute_tools",
      "validate_calls",
      "guard_calls",
    ]);
    const counts = history.map((snapshot) => ((snapshot.values as AgentStateType).messages ?? []).length);
    expect(counts[0]).toBe(2 + 2 * steps);
    expect(counts.at(-2)).toBe(1);
    backend.close();
  });

  it("with latest-only checkpoints, compacts a paused thread to its latest checkpoint with its pause, resumes it and compacts it again", async () => {
    const backend = openSqlite(":memory:");
    const { runtime, graph } = scriptedLoop(
      backend,
      [
        callsMessage([{ name: "read_a", args: { query: "before" }, id: "r1" }]),
        callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
        answerMessage("Restarted pay."),
      ],
      { keepHistory: false },
    );
    const threadId = await runtime.createThread(user);
    const paused = await collectEvents(await runtime.startRun({ threadId, message: "restart pay", user }));
    expect(paused.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
    expect(rows(backend, threadId).checkpoints).toBe(1);
    // The pause itself is a pending write of the latest checkpoint, and stays.
    const channels = backend.db
      .prepare("SELECT channel FROM writes WHERE thread_id = ?")
      .all(threadId)
      .map((row) => (row as { channel: string }).channel);
    expect(channels).toContain("__interrupt__");
    const view = await runtime.getThread(threadId, user);
    expect(view.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(await runtime.getResult(threadId, user, "r1")).toMatchObject({ callId: "r1", tool: "read_a" });

    const pause = paused.find((event) => event.type === "loop_interrupt") as unknown as PauseValue;
    const resumed: RunEvent[] = await collectEvents(
      await runtime.resumeRun({
        threadId,
        user,
        resume: { decisions: [{ callId: "w1", action: "approve", argsHash: pause.calls[0]!.argsHash }] },
      }),
    );
    expect(resumed.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(rows(backend, threadId)).toEqual({ checkpoints: 1, writes: 0 });
    const state = (await graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType;
    expect(state.messages.at(-1)!.content).toBe("Restarted pay.");
    expect(state.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai", "tool", "ai"]);
    const records = await backend.storage.threadRecords(threadId);
    expect(records.runs).toMatchObject([{ stop_reason: "final_answer", pauses: 1 }]);
    expect(records.decisions).toHaveLength(1);
    backend.close();
  });

  it("keeps every checkpoint of a run by default, each readable on its own", async () => {
    const backend = openSqlite(":memory:");
    const steps = 10;
    const { graph } = wireLoop({
      model: new ScriptedChatModel({ script: readSteps(steps) }),
      registry: new ToolRegistry(testTools()),
      storage: backend.storage,
      checkpointer: backend.checkpointer,
      defaults: { maxSteps: steps + 5, tokenBudget: 1_000_000_000 },
    });
    const config = { configurable: { thread_id: "long", userId: user.id, role: user.role, maxSteps: steps + 5 } };
    await graph.invoke({ messages: [new HumanMessage("go")] }, { ...config, recursionLimit: 1_000 });
    const ids = backend.db
      .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'long' ORDER BY checkpoint_id")
      .all()
      .map((row) => (row as { checkpoint_id: string }).checkpoint_id);
    expect(ids).toHaveLength(2 + 4 * steps + 1);
    const middle = await backend.checkpointer.getTuple({
      configurable: { thread_id: "long", checkpoint_ns: "", checkpoint_id: ids[20]! },
    });
    // The messages are a delta channel: the checkpoint holds the writes, the saver rebuilds the list.
    expect(middle!.checkpoint.channel_values.messages).toBeUndefined();
    const messages = (await valuesOf(backend.checkpointer, middle)).messages as unknown[];
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.length).toBeLessThan(2 + 2 * steps);
    backend.close();
  });

  it("reports what compacting a thread removed, and nothing the second time", async () => {
    const backend = openSqlite(":memory:");
    const { graph } = scriptedLoop(
      backend,
      [callsMessage([{ name: "read_a", args: { query: "x" } }]), answerMessage("Done.")],
      { keepHistory: false },
    );
    const config = { configurable: { thread_id: "t2", userId: user.id, role: user.role } };
    await graph.invoke({ messages: [new HumanMessage("go")] }, config);
    const before = rows(backend, "t2");
    const report = await backend.storage.compactThread("t2");
    expect(report.checkpoints).toBe(before.checkpoints - 1);
    expect(report.writes).toBe(before.writes);
    expect(await backend.storage.compactThread("t2")).toEqual({ checkpoints: 0, writes: 0, blobs: 0 });
    const state = (await graph.getState(config)).values as AgentStateType;
    expect(state.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
    backend.close();
  });

  it("compacts a thread with its history kept only down to the checkpoint its delta channels are rebuilt from", async () => {
    const backend = openSqlite(":memory:");
    const { graph } = scriptedLoop(backend, [
      callsMessage([{ name: "read_a", args: { query: "x" } }]),
      answerMessage("Done."),
    ]);
    const config = { configurable: { thread_id: "t3", userId: user.id, role: user.role } };
    await graph.invoke({ messages: [new HumanMessage("go")] }, config);
    const before = rows(backend, "t3");
    // No checkpoint after the input stores the messages whole: every one is needed to rebuild them.
    expect(await backend.storage.compactThread("t3")).toEqual({ checkpoints: 0, writes: 0, blobs: 0 });
    expect(rows(backend, "t3")).toEqual(before);
    const state = (await graph.getState(config)).values as AgentStateType;
    expect(state.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
    // The same thread, opened with only the latest checkpoint kept, is read whole and then compacts.
    const latest = scriptedLoop(backend, [answerMessage("Again.")], { keepHistory: false }).graph;
    expect(((await latest.getState(config)).values as AgentStateType).messages).toHaveLength(4);
    await latest.invoke({ messages: [new HumanMessage("once more")] }, config);
    expect((await backend.storage.compactThread("t3")).checkpoints).toBeGreaterThan(0);
    expect(rows(backend, "t3").checkpoints).toBe(1);
    const after = (await latest.getState(config)).values as AgentStateType;
    expect(after.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai", "human", "ai"]);
    // And back: the graph that keeps the history reads what the latest-only graph left.
    expect(((await graph.getState(config)).values as AgentStateType).messages).toHaveLength(6);
    backend.close();
  });
});
