import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemorySaver, START } from "@langchain/langgraph";
import type { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createApp } from "../../../src/app/assemble.js";
import { loadEnv } from "../../../src/config/env.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../../src/models/scripted-model.js";
import { collectEvents } from "../../../src/service/create-runtime.js";
import { watchCheckpoints } from "../../../src/service/checkpoint-watch.js";
import { checkpointWith } from "../../fixtures/checkpoints.js";
import type { AgentStateType } from "../../../src/graph/state.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-checkpoint-watch-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const user = { id: "local", role: "operator" };

/** Counts the graph's state reads from now on; `unwatched` reads without counting. */
function countStateReads(graph: ReturnType<typeof createApp>["graph"]) {
  const unwatched = graph.getState.bind(graph);
  const counter = { reads: 0, unwatched };
  graph.getState = (...args: Parameters<typeof unwatched>) => {
    counter.reads += 1;
    return unwatched(...args);
  };
  return counter;
}

describe("run_started and the input checkpoint", () => {
  it("announces a run once its message is saved as the run's input, before its first step, without polling the state", async () => {
    const model = new ScriptedChatModel({
      script: [callsMessage([{ name: "search_resource", args: { query: "payment" } }]), answerMessage("Done.")],
      // The first step is still running when the input checkpoint is saved.
      delayMs: 30,
    });
    const app = createApp({ env: loadEnv({ OPSPILOT_DB: join(directory, "announce.sqlite") }), model });
    try {
      const threadId = await app.runtime.createThread(user);
      const counter = countStateReads(app.graph);
      let atRunStarted: { reads: number; roles: string[]; input: unknown[] } | undefined;
      const appendEvent = app.storage.appendEvent.bind(app.storage);
      app.storage.appendEvent = async (id, runId, body) => {
        if (body.type === "run_started") {
          const readsSoFar = counter.reads;
          const config = { configurable: { thread_id: id } };
          const state = (await counter.unwatched(config)).values as AgentStateType;
          const saved = await (app.graph.checkpointer as BaseCheckpointSaver).getTuple(config);
          const input = saved?.checkpoint.channel_values[START] as { messages: HumanMessage[] };
          atRunStarted = {
            reads: readsSoFar,
            roles: state.messages.map((message) => message.getType()),
            input: input.messages.map((message) => message.content),
          };
        }
        return appendEvent(id, runId, body);
      };

      const events = await collectEvents(await app.runtime.startRun({ threadId, message: "check payment", user }));

      expect(events.map((event) => event.type)).toEqual([
        "run_started",
        "tool_call",
        "tool_result",
        "assistant_message",
        "run_finished",
      ]);
      // The saved checkpoint is the run's first: it holds the user's message as the run's input, and the
      // thread has nothing yet. The only state read before it is the one that plans the run.
      expect(atRunStarted).toEqual({ reads: 1, roles: [], input: ["check payment"] });
    } finally {
      await app.close();
    }
  });

  it("ends an answered run from its streamed final state, and reads a pause back from the saved checkpoint", async () => {
    const model = new ScriptedChatModel({
      script: [
        callsMessage([{ name: "search_resource", args: { query: "payment" } }]),
        answerMessage("Done."),
        callsMessage([{ name: "restart_service", args: { service: "payment-service" } }]),
      ],
    });
    const app = createApp({ env: loadEnv({ OPSPILOT_DB: join(directory, "final-state.sqlite") }), model });
    try {
      const threadId = await app.runtime.createThread(user);
      const counter = countStateReads(app.graph);
      const answered = await collectEvents(await app.runtime.startRun({ threadId, message: "check payment", user }));
      expect(answered.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 2 });
      // The read that plans the run is the only one.
      expect(counter.reads).toBe(1);
      counter.reads = 0;
      const paused = await collectEvents(await app.runtime.startRun({ threadId, message: "restart it", user }));
      expect(paused.map((event) => event.type).slice(-2)).toEqual(["loop_interrupt", "run_finished"]);
      expect(paused.at(-1)).toMatchObject({ stopReason: "interrupted", steps: 1 });
      expect(counter.reads).toBe(2);
    } finally {
      await app.close();
    }
  });

  it("tells a waiter only of a saved checkpoint of its thread holding its message", async () => {
    const saver = new MemorySaver();
    const watch = watchCheckpoints(saver);
    expect(watchCheckpoints(saver)).toBe(watch);
    const told: string[] = [];
    const wait = watch.untilSaved("t1", "m1");
    void wait.saved.then((saved) => told.push(`m1:${saved}`));
    const other = watch.untilSaved("t1", "m2");
    void other.saved.then((saved) => told.push(`m2:${saved}`));

    await saver.put({ configurable: { thread_id: "t2", checkpoint_ns: "" } }, checkpointWith("c0", [{ id: "m1" }]), {
      source: "input",
      step: -1,
      parents: {},
    });
    expect(told).toEqual([]);
    await saver.put({ configurable: { thread_id: "t1", checkpoint_ns: "" } }, checkpointWith("c1", [{ id: "m1" }]), {
      source: "input",
      step: -1,
      parents: {},
    });
    expect(told).toEqual(["m1:true"]);
    expect(await saver.getTuple({ configurable: { thread_id: "t1" } })).toBeDefined();
    other.cancel();
    await other.saved;
    expect(told).toEqual(["m1:true", "m2:false"]);

    // A run's first checkpoint holds its message as the run's input, not yet in the thread.
    const input = watch.untilSaved("t1", "m3");
    void input.saved.then((saved) => told.push(`m3:${saved}`));
    const first = checkpointWith("c2", [{ id: "m1" }]);
    await saver.put(
      { configurable: { thread_id: "t1", checkpoint_ns: "" } },
      { ...first, channel_values: { ...first.channel_values, [START]: { messages: [{ id: "m3" }] } } },
      { source: "input", step: 2, parents: {} },
    );
    expect(told).toEqual(["m1:true", "m2:false", "m3:true"]);
  });
});
