import { HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Command, MemorySaver } from "@langchain/langgraph";
import type { PendingWrite } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { compileGraph, type OpsPilotGraph } from "../../../src/agent/graph.js";
import { threadStanding } from "../../../src/graph/pause.js";
import { checkPairing } from "../../../src/graph/calls/pairing.js";
import type { AgentStateType } from "../../../src/graph/state.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../fixtures/scripted-model.js";
import { CancellationRegistry } from "../../../src/service/runtime/cancellation.js";
import { openSqlite, type SqliteBackend } from "../../../src/storage/sqlite/open-sqlite.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { testTools } from "../../fixtures/test-tools.js";

/**
 * A saver whose process "dies" once the node named by `dieAfter` has saved its output: the
 * step's checkpoint is never written, as when a process is killed between the two.
 */
class DyingSaver extends MemorySaver {
  /** The node after whose saved output the next checkpoint fails. */
  dieAfter: string | undefined;
  private dying = false;

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string) {
    await super.putWrites(config, writes, taskId, taskPath);
    const output = writes.some(([channel]) => !channel.startsWith("__"));
    if (this.dieAfter !== undefined && output && taskPath?.endsWith(`, ${this.dieAfter}`)) this.dying = true;
  }

  override async put(...args: Parameters<MemorySaver["put"]>) {
    if (this.dying) throw new Error("the process died");
    return super.put(...args);
  }

  /** The next process: same saved state, no crash. */
  restart() {
    this.dieAfter = undefined;
    this.dying = false;
  }
}

let backend: SqliteBackend | undefined;
afterEach(() => backend?.close());

function crashingGraph() {
  backend = openSqlite(":memory:");
  const saver = new DyingSaver();
  const model = new ScriptedChatModel({
    script: [
      callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }]),
      answerMessage("Restarted pay in prod."),
    ],
  });
  const registry = new ToolRegistry(testTools());
  const graph = compileGraph(
    { model, registry, storage: backend.storage, cancellations: new CancellationRegistry() },
    saver,
  );
  return { graph, saver };
}

/** A resume with one decision, as the graph takes it. */
const resume = (decision: Record<string, unknown>) =>
  new Command({ resume: { decisions: [decision] } }) as Parameters<OpsPilotGraph["invoke"]>[0];

// As the runtime drives runs: each step's checkpoint is saved before the next step starts.
const config = { configurable: { thread_id: "crashed" }, durability: "sync" as const };

describe("a thread whose process died between a step's saved writes and its checkpoint", () => {
  it("is unfinished, not idle, when the model's tool calls were saved and its checkpoint was not", async () => {
    const { graph, saver } = crashingGraph();
    saver.dieAfter = "call_model";
    await expect(
      graph.invoke({ messages: [new HumanMessage({ id: "h1", content: "restart pay in prod" })] }, config),
    ).rejects.toThrow("the process died");

    const snapshot = await graph.getState(config);
    // LangGraph shows the saved output but leaves its task out of `next`.
    expect(snapshot.next).toEqual([]);
    expect(checkPairing((snapshot.values as AgentStateType).messages).unanswered).toEqual(["w1"]);
    expect(threadStanding(snapshot)).toEqual({ kind: "unfinished" });

    saver.restart();
    await graph.invoke(null, config);
    const paused = threadStanding(await graph.getState(config));
    expect(paused.kind === "paused" && paused.interrupt.calls.map((call) => call.callId)).toEqual(["w1"]);
  });

  it("is unfinished, not paused on the answered pause, when review_calls' answer was saved and its checkpoint was not", async () => {
    const { graph, saver } = crashingGraph();
    await graph.invoke({ messages: [new HumanMessage({ id: "h1", content: "restart pay in prod" })] }, config);
    expect(threadStanding(await graph.getState(config)).kind).toBe("paused");

    saver.dieAfter = "review_calls";
    await expect(graph.invoke(resume({ callId: "w1", action: "approve" }), config)).rejects.toThrow("the process died");
    const snapshot = await graph.getState(config);
    // The answered interrupt is still listed beside the saved answer.
    expect(snapshot.tasks.map((task) => [task.name, task.interrupts.length])).toEqual([["review_calls", 1]]);
    expect(threadStanding(snapshot)).toEqual({ kind: "unfinished" });

    saver.restart();
    await graph.invoke(null, config);
    const finished = await graph.getState(config);
    expect(threadStanding(finished)).toEqual({ kind: "idle" });
    const messages = (finished.values as AgentStateType).messages;
    expect(messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(JSON.parse(String(messages[2]!.content))).toMatchObject({ ok: true });
    expect(String(messages[3]!.content)).toBe("Restarted pay in prod.");
  });

  it("stays paused, with the refusal, when a resume that does not fit reaches review_calls itself", async () => {
    const { graph } = crashingGraph();
    await graph.invoke({ messages: [new HumanMessage({ id: "h1", content: "restart pay in prod" })] }, config);
    // As LangGraph Studio would send it, past the runtime's checks.
    await graph.invoke(resume({ callId: "nope", action: "approve" }), config);
    const standing = threadStanding(await graph.getState(config));
    expect(standing.kind === "paused" && standing.interrupt.error).toBe("Unknown call id nope; waiting calls: w1.");
  });
});
