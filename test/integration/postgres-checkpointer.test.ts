import { Annotation, Command, END, INTERRUPT, START, StateGraph, interrupt } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BatchedPostgresSaver } from "../../src/storage/postgres-checkpointer.js";
import { openPostgres, type PostgresBackend } from "../../src/storage/open-postgres.js";
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
  let stock: PostgresSaver;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    backend = await openPostgres(cluster.url);
    stock = new PostgresSaver(backend.pool);
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

  it("saves a checkpoint in one statement and a task's writes in one, where PostgresSaver sends one per row", async () => {
    const saver = backend.checkpointer;
    expect(saver).toBeInstanceOf(BatchedPostgresSaver);
    const config = { configurable: { thread_id: "round-trips", checkpoint_ns: "" } };
    const { checkpoint, versions } = checkpointWith(5);
    const metadata = { source: "loop" as const, step: 1, parents: {} };

    const batched = await statementsOf(() => saver.put(config, checkpoint, metadata, versions));
    expect(batched).toHaveLength(1);
    const stockPut = await statementsOf(() =>
      stock.put(
        { configurable: { thread_id: "round-trips-stock", checkpoint_ns: "" } },
        checkpoint,
        metadata,
        versions,
      ),
    );
    // BEGIN, five blobs, the checkpoint, COMMIT.
    expect(stockPut).toHaveLength(8);

    const writes: Array<[string, unknown]> = [
      ["notes", ["a"]],
      ["count", 1],
      ["branch:to:write", null],
    ];
    const saved = { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
    expect(await statementsOf(() => saver.putWrites(saved, writes, "task-1"))).toHaveLength(1);
    expect(await statementsOf(() => stock.putWrites(saved, writes, "task-2"))).toHaveLength(5);

    // What either wrote reads back the same through the other.
    const read = await stock.getTuple(saved);
    expect(read?.checkpoint.channel_values).toEqual(checkpoint.channel_values);
    expect(read?.pendingWrites).toEqual(await saver.getTuple(saved).then((tuple) => tuple?.pendingWrites));
    expect(
      read?.pendingWrites?.filter(([task]) => task === "task-1").map(([, channel, value]) => [channel, value]),
    ).toEqual(writes);
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
});
