import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { compileGraph } from "../../../src/agent/graph.js";
import { threadStanding } from "../../../src/graph/pause.js";
import type { AgentStateType } from "../../../src/graph/state.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../fixtures/scripted-model.js";
import { CancellationRegistry } from "../../../src/service/runtime/cancellation.js";
import { createRuntime } from "../../../src/service/runtime/create-runtime.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import { openSqlite, type SqliteBackend } from "../../../src/storage/sqlite/open-sqlite.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { testTools } from "../../fixtures/test-tools.js";

/** A saver whose process "dies" right after saving the checkpoint that takes a run's input: nothing after it is saved. */
class DiesAfterInput extends MemorySaver {
  dying = false;

  override async put(...args: Parameters<MemorySaver["put"]>) {
    if (this.dying && args[2].source !== "input") throw new Error("the process died");
    return super.put(...args);
  }

  override async putWrites(...args: Parameters<MemorySaver["putWrites"]>) {
    if (this.dying) throw new Error("the process died");
    return super.putWrites(...args);
  }
}

let backend: SqliteBackend | undefined;
afterEach(() => backend?.close());

const user = { id: "alice", role: "operator" as const };

describe("a run whose process died between its input checkpoint and its first step's", () => {
  it("is recovered as a new run of its own, not as more of the thread's previous run", async () => {
    backend = openSqlite(":memory:");
    const saver = new DiesAfterInput();
    const model = new ScriptedChatModel({
      script: [
        callsMessage([{ name: "read_a", args: { query: "first" } }]),
        answerMessage("First answer."),
        answerMessage("Second answer."),
      ],
    });
    const registry = new ToolRegistry(testTools());
    const cancellations = new CancellationRegistry();
    const graph = compileGraph({ model, registry, storage: backend.storage, cancellations }, saver);
    const runtime = createRuntime({ graph, registry, storage: backend.storage, cancellations });
    const threadId = await runtime.createThread(user);
    const first = await collectEvents(await runtime.startRun({ threadId, message: "look up first", user }));
    expect(first.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 2 });
    const firstRunId = first[0]!.runId;

    // The next message reaches the input checkpoint; the process dies before the step that takes it in.
    saver.dying = true;
    const config = { configurable: { thread_id: threadId, run_id: "never-started" }, durability: "sync" as const };
    await expect(
      graph.invoke({ messages: [new HumanMessage({ id: "h2", content: "and now?" })] }, config),
    ).rejects.toThrow("the process died");
    saver.dying = false;
    const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
    expect(threadStanding(snapshot)).toEqual({ kind: "unfinished" });
    // The message is saved, as the input the next step takes in.
    expect((snapshot.values as AgentStateType).messages.map((message) => message.id)).not.toContain("h2");

    const recovered = await collectEvents(await runtime.recoverRun(threadId, user));
    expect(recovered.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 1 });
    expect(recovered[0]!.runId).not.toBe(firstRunId);
    const messages = ((await graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType)
      .messages;
    expect(messages.at(-2)?.id).toBe("h2");
    expect(messages.at(-1)?.content).toBe("Second answer.");
    // The first run's record keeps its own two steps.
    const { runs } = await backend.storage.threadRecords(threadId);
    expect(runs.map((run) => [run.run_id === firstRunId, run.steps])).toEqual([
      [true, 2],
      [false, 1],
    ]);
  });
});
