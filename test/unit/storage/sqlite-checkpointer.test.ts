import BetterSqlite3 from "better-sqlite3";
import { HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph, Annotation } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { describe, expect, it } from "vitest";
import { ChannelSqliteSaver } from "../../../src/storage/sqlite-checkpointer.js";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  counter: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
});

/** A graph whose second node writes only the small channel. */
function graph(saver: SqliteSaver) {
  return new StateGraph(State)
    .addNode("talk", (state) => ({
      messages: [new HumanMessage({ id: `m${state.messages.length}`, content: "x".repeat(2_000) })],
    }))
    .addNode("count", (state) => ({ counter: state.counter + 1 }))
    .addEdge("__start__", "talk")
    .addEdge("talk", "count")
    .addEdge("count", "__end__")
    .compile({ checkpointer: saver });
}

describe("ChannelSqliteSaver", () => {
  it("restores the full state and history while storing each channel value once per version", async () => {
    const db = new BetterSqlite3(":memory:");
    const saver = new ChannelSqliteSaver(db);
    const app = graph(saver);
    const config = { configurable: { thread_id: "t1" } };
    await app.invoke({ messages: [] }, config);
    await app.invoke({ messages: [] }, config);
    const state = await app.getState(config);
    expect(state.values.counter).toBe(2);
    expect(state.values.messages.map((m: HumanMessage) => m.id)).toEqual(["m0", "m1"]);
    const history = [];
    for await (const snapshot of app.getStateHistory(config)) history.push(snapshot.values.counter ?? 0);
    expect(history).toEqual([2, 1, 1, 1, 1, 0, 0, 0]);
    // messages: one blob per version (two inputs, two replies); the "count" steps stored no messages.
    const blobs = db
      .prepare("SELECT channel, COUNT(*) AS n FROM opspilot_checkpoint_blobs WHERE thread_id = 't1' GROUP BY channel")
      .all() as Array<{ channel: string; n: number }>;
    expect(Object.fromEntries(blobs.map((row) => [row.channel, row.n]))).toEqual({ messages: 4 });
    // The small counter rides in the checkpoint rows instead, each with the value it had then.
    const latest = db
      .prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = 't1' ORDER BY checkpoint_id DESC LIMIT 1")
      .get() as { checkpoint: Uint8Array };
    expect(JSON.parse(Buffer.from(latest.checkpoint).toString()).channel_values).toMatchObject({ counter: 2 });
  });

  it("keeps only the latest value of a channel that moves between its own row and the checkpoint row", async () => {
    const Note = Annotation.Root({ note: Annotation<string>({ reducer: (_a, b) => b, default: () => "" }) });
    const db = new BetterSqlite3(":memory:");
    const app = new StateGraph(Note)
      .addNode("write", (_state, config) => ({ note: String(config.configurable?.note) }))
      .addEdge("__start__", "write")
      .addEdge("write", "__end__")
      .compile({ checkpointer: new ChannelSqliteSaver(db, { latestOnly: true }) });
    const blobNotes = () =>
      (db.prepare("SELECT COUNT(*) AS n FROM opspilot_checkpoint_blobs WHERE channel = 'note'").get() as { n: number })
        .n;
    const long = "y".repeat(5_000);
    for (const note of [long, "short", long, "short again"]) {
      const config = { configurable: { thread_id: "t1", note } };
      await app.invoke({}, config);
      expect((await app.getState(config)).values.note).toBe(note);
      expect(blobNotes()).toBe(note === long ? 1 : 0);
    }
  });

  it("reads threads written by the plain SqliteSaver and continues them", async () => {
    const db = new BetterSqlite3(":memory:");
    const config = { configurable: { thread_id: "old" } };
    await graph(new SqliteSaver(db)).invoke({ messages: [] }, config);
    const upgraded = graph(new ChannelSqliteSaver(db));
    await upgraded.invoke({ messages: [] }, config);
    const state = await upgraded.getState(config);
    expect(state.values.counter).toBe(2);
    expect(state.values.messages).toHaveLength(2);
  });
});
