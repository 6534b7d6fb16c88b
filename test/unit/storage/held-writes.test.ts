import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { HumanMessage } from "@langchain/core/messages";
import { Annotation, Command, INTERRUPT, MessagesAnnotation, StateGraph, interrupt } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { ChannelSqliteSaver } from "../../../src/storage/sqlite-checkpointer.js";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  counter: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
});

const directories: string[] = [];

/** A saver keeping the latest checkpoint only, on a temp file, and a second connection that sees only committed rows. */
function open() {
  const directory = mkdtempSync(join(tmpdir(), "held-writes-"));
  directories.push(directory);
  const db = new BetterSqlite3(join(directory, "db.sqlite"));
  db.pragma("journal_mode = WAL");
  const saver = new ChannelSqliteSaver(db, { latestOnly: true });
  const reader = new BetterSqlite3(join(directory, "db.sqlite"), { readonly: true });
  const writes = () =>
    (reader.prepare("SELECT channel FROM writes ORDER BY channel").all() as Array<{ channel: string }>).map(
      (row) => row.channel,
    );
  return { db, saver, writes, close: () => (reader.close(), db.close()) };
}

const config = (checkpointId: string) => ({
  configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: checkpointId },
});

function checkpoint(id: string, counter: number) {
  return {
    v: 4,
    id,
    ts: new Date().toISOString(),
    channel_values: { counter },
    channel_versions: { counter: counter + 1 },
    versions_seen: {},
  };
}

/** The first checkpoint of thread t1, saved. */
const FIRST = "1f000000-0000-6000-8000-000000000001";

/** `open()` with thread t1's first checkpoint saved, so writes have a checkpoint to belong to. */
async function openWithCheckpoint() {
  const opened = open();
  await opened.saver.put(config(""), checkpoint(FIRST, 0), { source: "loop", step: 0, parents: {} }, { counter: 1 });
  return opened;
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("ChannelSqliteSaver holding a step's writes (latestOnly)", () => {
  it("never writes a step's pending writes when the next checkpoint follows them", async () => {
    const { saver, writes, close } = open();
    const app = new StateGraph(State)
      .addNode("talk", (state) => ({ messages: [new HumanMessage(`m${state.messages.length}`)] }))
      .addNode("count", (state) => ({ counter: state.counter + 1 }))
      .addEdge("__start__", "talk")
      .addEdge("talk", "count")
      .addEdge("count", "__end__")
      .compile({ checkpointer: saver });
    const seenAtPuts: string[][] = [];
    const put = saver.put.bind(saver);
    saver.put = (...args) => {
      seenAtPuts.push(writes());
      return put(...args);
    };
    for (const durability of ["sync", "async"] as const) {
      await app.invoke({ messages: [] }, { configurable: { thread_id: `t-${durability}` }, durability });
    }
    // Every put found no pending writes on disk: each step's were folded into the checkpoint after them.
    expect(seenAtPuts.length).toBeGreaterThanOrEqual(8);
    expect(seenAtPuts.flat()).toEqual([]);
    expect(writes()).toEqual([]);
    const state = await app.getState({ configurable: { thread_id: "t-async" } });
    expect(state.values.counter).toBe(1);
    expect(state.values.messages).toHaveLength(1);
    close();
  });

  it("commits writes no checkpoint follows on their own, and putWrites settles when they are committed", async () => {
    const { saver, writes, close } = await openWithCheckpoint();
    const started = performance.now();
    await saver.putWrites(config(FIRST), [["counter", 5]], "task-a");
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
    expect(writes()).toEqual(["counter"]);
    // A read finds them as the checkpoint's pending writes.
    const tuple = await saver.getTuple({ configurable: { thread_id: "t1" } });
    expect(tuple?.pendingWrites).toEqual([["task-a", "counter", 5]]);
    close();
  });

  it("commits a thread's held writes before it is read, and with a pause's writes at once", async () => {
    const { saver, writes, close } = await openWithCheckpoint();
    const held = saver.putWrites(config(FIRST), [["counter", 7]], "task-a");
    expect(writes()).toEqual([]);
    const tuple = await saver.getTuple({ configurable: { thread_id: "t1" } });
    expect(tuple?.pendingWrites).toEqual([["task-a", "counter", 7]]);
    await held;
    const more = saver.putWrites(config(FIRST), [["messages", "x"]], "task-b");
    expect(writes()).toEqual(["counter"]);
    await saver.putWrites(config(FIRST), [[INTERRUPT, [{ value: "ask" }]]], "task-c");
    // The pause committed, and the held write with it: both visible before the held putWrites even settled.
    expect(writes()).toEqual([INTERRUPT, "counter", "messages"]);
    await more;
    close();
  });

  it("fails the held putWrites when the checkpoint that folds them in fails", async () => {
    const { db, saver, close } = await openWithCheckpoint();
    const held = saver.putWrites(config(FIRST), [["counter", 7]], "task-a");
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON checkpoints BEGIN SELECT RAISE(ABORT, 'disk refused'); END;");
    const next = saver.put(
      config(FIRST),
      checkpoint("1f000000-0000-6000-8000-000000000002", 7),
      { source: "loop", step: 1, parents: {} },
      { counter: 8 },
    );
    await expect(next).rejects.toThrow("disk refused");
    await expect(held).rejects.toThrow("disk refused");
    close();
  });

  it("commits what it holds when asked before the connection closes", async () => {
    const { saver, writes, close } = await openWithCheckpoint();
    const held = saver.putWrites(config(FIRST), [["counter", 3]], "task-a");
    await saver.commitHeldWrites();
    await held;
    expect(writes()).toEqual(["counter"]);
    close();
  });

  it("resumes a pause whose step held writes, with every write in place", async () => {
    const { saver, close } = open();
    const app = new StateGraph(State)
      .addNode("talk", (state) => ({ messages: [new HumanMessage(`m${state.messages.length}`)] }))
      .addNode("ask", () => ({ counter: Number(interrupt("how many?")) }))
      .addEdge("__start__", "talk")
      .addEdge("talk", "ask")
      .addEdge("ask", "__end__")
      .compile({ checkpointer: saver });
    const thread = { configurable: { thread_id: "t1" } };
    await app.invoke({ messages: [] }, thread);
    expect((await app.getState(thread)).tasks[0]?.interrupts[0]?.value).toBe("how many?");
    const done = await app.invoke(new Command({ resume: 4 }), thread);
    expect(done.counter).toBe(4);
    expect(done.messages).toHaveLength(1);
    close();
  });
});
