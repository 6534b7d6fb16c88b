import { Annotation, Command, END, INTERRUPT, START, StateGraph, interrupt } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BatchedPostgresSaver } from "../../src/storage/checkpoints/postgres-checkpointer.js";
import { openPostgres, type PostgresBackend } from "../../src/storage/postgres/open-postgres.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

/** Every statement any client sends, while `counting` is on. */
const sent: string[] = [];
let counting = false;
const clientQuery = pg.Client.prototype.query;

/** A small graph with a list, a counter and a pause, so saves carry several channels and a pause's writes. */
function buildGraph() {
  const State = Annotation.Root({
    notes: Annotation<string[]>({ reducer: (left, right) => [...left, ...right], default: () => [] }),
    count: Annotation<number>({ reducer: (_, right) => right, default: () => 0 }),
  });
  return new StateGraph(State)
    .addNode("write", (state) => ({ notes: [`note ${state.count + 1}`], count: state.count + 1 }))
    .addNode("ask", () => ({ notes: [`answer: ${String(interrupt({ question: "go on?" }))}`] }))
    .addEdge(START, "write")
    .addConditionalEdges("write", (state) => (state.count < 3 ? "write" : "ask"), ["write", "ask"])
    .addEdge("ask", END);
}

/** A checkpoint with `channels` values of a few hundred bytes, each a new version. */
function checkpointWith(channels: number): { checkpoint: Checkpoint; versions: Record<string, number> } {
  const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
  const versions: Record<string, number> = {};
  for (let i = 0; i < channels; i += 1) {
    checkpoint.channel_values[`channel_${i}`] = { text: "x".repeat(300), i };
    checkpoint.channel_versions[`channel_${i}`] = 1;
    versions[`channel_${i}`] = 1;
  }
  return { checkpoint, versions };
}

describe.skipIf(skipPostgres)("BatchedPostgresSaver", () => {
  let cluster: PostgresCluster;
  let backend: PostgresBackend;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    backend = await openPostgres(cluster.url);
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (counting) sent.push(typeof args[0] === "string" ? args[0] : String((args[0] as { text?: string }).text));
      return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof clientQuery;
  });

  afterEach(() => {
    counting = false;
    sent.length = 0;
  });

  afterAll(async () => {
    pg.Client.prototype.query = clientQuery;
    await backend?.close();
    await cluster?.stop();
  });

  /** The statements `action` sends. */
  async function statementsOf(action: () => Promise<unknown>): Promise<string[]> {
    sent.length = 0;
    counting = true;
    await action();
    counting = false;
    return [...sent];
  }

  it("saves a step in two statements, its task's writes and the checkpoint after them, where PostgresSaver sends one per row", async () => {
    const saver = backend.checkpointer;
    expect(saver).toBeInstanceOf(BatchedPostgresSaver);
    const metadata = { source: "loop" as const, step: 1, parents: {} };
    const writes: Array<[string, unknown]> = [
      ["notes", ["a"]],
      ["count", 1],
      ["branch:to:write", null],
    ];
    const { checkpoint: first, versions } = checkpointWith(5);
    const { checkpoint: next } = checkpointWith(5);
    const stepOf = async (target: PostgresSaver, threadId: string) => {
      const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
      const put = await statementsOf(() => target.put(config, first, metadata, versions));
      const saved = { configurable: { ...config.configurable, checkpoint_id: first.id } };
      // The task's writes, then the checkpoint after its step (LangGraph waits for a delta channel's writes first).
      const step = await statementsOf(() =>
        Promise.all([target.putWrites(saved, writes, "task-1"), target.put(saved, next, metadata, { count: 2 })]),
      );
      return { put, step, saved };
    };
    const batched = await stepOf(saver, "round-trips");
    expect(batched.put).toHaveLength(1);
    expect(batched.step).toHaveLength(2);
    const stock = await stepOf(new PostgresSaver(backend.pool), "round-trips-stock");
    // BEGIN, five blobs, the checkpoint, COMMIT; then BEGIN, three writes, COMMIT and BEGIN, a blob, the checkpoint, COMMIT.
    expect(stock.put).toHaveLength(8);
    expect(stock.step).toHaveLength(9);

    // What either wrote reads back the same through the other.
    const read = await new PostgresSaver(backend.pool).getTuple(batched.saved);
    expect(read?.checkpoint.channel_values).toEqual(first.channel_values);
    expect(read?.pendingWrites?.map(([task, channel, value]) => [task, channel, value])).toEqual(
      writes.map(([channel, value]) => ["task-1", channel, value]),
    );
    expect(await saver.getTuple(stock.saved).then((tuple) => tuple?.pendingWrites)).toEqual(read?.pendingWrites);
  });

  it("saves writes on their own, committed when putWrites settles, and before their thread is read", async () => {
    const saver = backend.checkpointer;
    const { checkpoint, versions } = checkpointWith(1);
    const metadata = { source: "loop" as const, step: 1, parents: {} };
    const countWrites = async (threadId: string) =>
      (await backend.pool.query("SELECT count(*)::int AS n FROM checkpoint_writes WHERE thread_id = $1", [threadId]))
        .rows[0].n as number;
    for (const threadId of ["alone", "read"]) {
      const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
      await saver.put(config, checkpoint, metadata, versions);
    }
    const alone = saver.putWrites(
      { configurable: { thread_id: "alone", checkpoint_ns: "", checkpoint_id: checkpoint.id } },
      [["count", 7]],
      "t",
    );
    // Saved at once (LangGraph awaits a delta channel's writes before the checkpoint after them), committed when it settles.
    await alone;
    expect(await countWrites("alone")).toBe(1);

    const read = { configurable: { thread_id: "read", checkpoint_ns: "", checkpoint_id: checkpoint.id } };
    const waiting = saver.putWrites(read, [["count", 8]], "t");
    expect((await saver.getTuple(read))?.pendingWrites).toEqual([["t", "count", 8]]);
    await waiting;
    await expect(saver.putWrites({ configurable: { thread_id: "read" } }, [["count", 9]], "t")).rejects.toThrow(
      "Missing checkpoint_id",
    );
  });

  it("runs a graph to a pause and through its resume with the same state and writes as PostgresSaver", async () => {
    const runOn = async (saver: PostgresSaver, threadId: string) => {
      const graph = buildGraph().compile({ checkpointer: saver });
      const config = { configurable: { thread_id: threadId } };
      await graph.invoke({ notes: ["start"] }, config);
      const paused = await graph.getState(config);
      const resumed = await graph.invoke(new Command({ resume: "yes" }), config);
      const history = [];
      for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot.values);
      return {
        paused: {
          values: paused.values,
          next: paused.next,
          interrupts: paused.tasks.map((task) => task.interrupts.map(({ value }) => value)),
        },
        resumed,
        history,
      };
    };
    const batched = await runOn(backend.checkpointer, "graph-batched");
    const stock = new PostgresSaver(backend.pool);
    const reference = await runOn(stock, "graph-stock");
    expect(batched.paused).toEqual(reference.paused);
    expect(batched.paused.next).toEqual(["ask"]);
    expect(batched.resumed).toEqual({ notes: ["start", "note 1", "note 2", "note 3", "answer: yes"], count: 3 });
    expect(batched.history).toEqual(reference.history);

    // The pause's write is stored as PostgresSaver stores it, and the stock saver reads the batched thread.
    const pause = await backend.pool.query(
      "SELECT count(*)::int AS n FROM checkpoint_writes WHERE thread_id = $1 AND channel = $2",
      ["graph-batched", INTERRUPT],
    );
    expect(pause.rows[0].n).toBe(1);
    const viaStock = await buildGraph()
      .compile({ checkpointer: stock })
      .getState({ configurable: { thread_id: "graph-batched" } });
    expect(viaStock.values).toEqual(batched.resumed);
  });

  it("keeps a task's first regular writes and replaces a pause's, as PostgresSaver does", async () => {
    const saver = backend.checkpointer;
    const { checkpoint, versions } = checkpointWith(1);
    const config = { configurable: { thread_id: "conflicts", checkpoint_ns: "" } };
    await saver.put(config, checkpoint, { source: "loop", step: 1, parents: {} }, versions);
    const saved = { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
    await saver.putWrites(saved, [["count", 1]], "task");
    await saver.putWrites(saved, [["count", 2]], "task");
    await saver.putWrites(saved, [[INTERRUPT, "first question"]], "paused-task");
    await saver.putWrites(saved, [[INTERRUPT, "second question"]], "paused-task");
    const pending = (await saver.getTuple(saved))?.pendingWrites ?? [];
    expect(pending.filter(([task]) => task === "task").map(([, , value]) => value)).toEqual([1]);
    expect(pending.filter(([task]) => task === "paused-task").map(([, , value]) => value)).toEqual(["second question"]);
  });

  it("saves nothing of a checkpoint whose statement fails", async () => {
    const saver = backend.checkpointer;
    const { checkpoint, versions } = checkpointWith(3);
    // A NUL character is valid JSON but not in PostgreSQL's JSONB: the checkpoint's row is refused.
    const metadata = { source: "loop" as const, step: 1, parents: {}, note: "a\u0000b" };
    await expect(
      saver.put({ configurable: { thread_id: "refused", checkpoint_ns: "" } }, checkpoint, metadata, versions),
    ).rejects.toThrow(/unicode|\\u0000/i);
    const left = await backend.pool.query(
      "SELECT (SELECT count(*) FROM checkpoint_blobs WHERE thread_id = $1)::int AS blobs, (SELECT count(*) FROM checkpoints WHERE thread_id = $1)::int AS checkpoints",
      ["refused"],
    );
    expect(left.rows[0]).toEqual({ blobs: 0, checkpoints: 0 });
  });

  it("commits a step's records and events each in a statement of its own, with bound parameters: four statements with its checkpoint", async () => {
    const { storage, checkpointer } = backend;
    const { checkpoint, versions } = checkpointWith(2);
    const config = { configurable: { thread_id: "records-apart", checkpoint_ns: "" } };
    await storage.createThread("records-apart", "alice");
    const committedRuns = async () =>
      (await backend.pool.query("SELECT run_id FROM opspilot_runs WHERE thread_id = $1", ["records-apart"])).rows;
    let seenBeforeSave: unknown[] = [];
    const statements = await statementsOf(async () => {
      await storage.recordRunStart({
        runId: "apart-1",
        threadId: "records-apart",
        userId: "alice",
        startedAt: Date.now(),
      });
      await storage.recordStep({
        runId: "apart-1",
        step: 1,
        latencyMs: 5,
        inputTokens: 100,
        outputTokens: 20,
        toolCalls: 1,
        costUsd: 0.5,
      });
      const events = await storage.appendEvents("records-apart", "apart-1", [{ type: "run_started" }]);
      expect(events.map((event) => event.seq)).toEqual([1]);
      counting = false;
      // Committed before their calls returned: another connection sees them with no checkpoint saved.
      seenBeforeSave = await committedRuns();
      counting = true;
      await checkpointer.put(config, checkpoint, { source: "loop", step: 1, parents: {} }, versions);
    });
    expect(seenBeforeSave).toEqual([{ run_id: "apart-1" }]);
    // The run's start, the step with its usage, the events, then the checkpoint with its two channels: the table each writes first.
    expect(statements.map((text) => /INSERT INTO (?:"public"\.)?(\w+)/.exec(text)?.[1])).toEqual([
      "opspilot_runs",
      "opspilot_steps",
      "opspilot_event_seqs",
      "checkpoint_blobs",
    ]);
    // No value is written into a statement's text: each is one statement, its values bound.
    expect(statements.filter((text) => text.includes(";") || text.includes("apart-1"))).toEqual([]);
    expect(await storage.usageOn("alice", new Date().toISOString().slice(0, 10))).toMatchObject({
      runs: 1,
      tokens: 120,
    });
    expect((await storage.threadRecords("records-apart")).steps).toHaveLength(1);
    expect(await storage.eventsAfter("records-apart", 0)).toEqual([
      { type: "run_started", threadId: "records-apart", runId: "apart-1", seq: 1 },
    ]);
  });

  it("keeps the records committed before a checkpoint whose statement fails", async () => {
    const { storage, checkpointer } = backend;
    const { checkpoint, versions } = checkpointWith(1);
    const config = { configurable: { thread_id: "refused-records", checkpoint_ns: "" } };
    await storage.recordRunStart({ runId: "refused-1", threadId: "refused-records", userId: "carol", startedAt: 1 });
    await expect(
      checkpointer.put(
        config,
        checkpoint,
        { source: "loop", step: 1, parents: {}, note: "a\u0000b" } as never,
        versions,
      ),
    ).rejects.toThrow();
    const runs = await backend.pool.query("SELECT run_id FROM opspilot_runs WHERE run_id = 'refused-1'");
    expect(runs.rows).toEqual([{ run_id: "refused-1" }]);
    expect(await checkpointer.getTuple(config)).toBeUndefined();
  });

  it("resumes and finishes, through openPostgres, a thread the stock PostgresSaver paused", async () => {
    const url = await cluster.createDatabase("written_by_stock");
    const pool = new pg.Pool({ connectionString: url });
    const stock = new PostgresSaver(pool);
    await stock.setup();
    const config = { configurable: { thread_id: "paused-by-stock" } };
    await buildGraph()
      .compile({ checkpointer: stock })
      .invoke({ notes: ["start"] }, config);
    await stock.end();

    const reopened = await openPostgres(url);
    try {
      const graph = buildGraph().compile({ checkpointer: reopened.checkpointer });
      const paused = await graph.getState(config);
      expect(paused.values).toEqual({ notes: ["start", "note 1", "note 2", "note 3"], count: 3 });
      expect(paused.next).toEqual(["ask"]);
      expect(paused.tasks.map((task) => task.interrupts.map(({ value }) => value))).toEqual([[{ question: "go on?" }]]);
      const stepsOf = async () => {
        const steps: number[] = [];
        for await (const snapshot of graph.getStateHistory(config)) steps.push(snapshot.metadata?.step ?? NaN);
        return steps;
      };
      expect(await stepsOf()).toEqual([3, 2, 1, 0, -1]);
      const finished = await graph.invoke(new Command({ resume: "yes" }), config);
      expect(finished).toEqual({ notes: ["start", "note 1", "note 2", "note 3", "answer: yes"], count: 3 });
      const state = await graph.getState(config);
      expect(state.values).toEqual(finished);
      expect(state.next).toEqual([]);
      expect(state.tasks).toEqual([]);
      // The stock saver's checkpoints are all still there, under the reopened saver's one.
      expect(await stepsOf()).toEqual([4, 3, 2, 1, 0, -1]);
    } finally {
      await reopened.close();
    }
  });
});
