import type { Statement } from "better-sqlite3";
import type { RunnableConfig } from "@langchain/core/runnables";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import {
  WRITES_IDX_MAP,
  copyCheckpoint,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type DeltaChannelHistory,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { MAX_WALKED_CHANNELS, walkEnds } from "./delta-base.js";
import { StatementCache } from "../sqlite/statement-cache.js";

/** A checkpoint of the chain, nearest first: its id and which of the asked channels it stores whole. */
interface ChainRow {
  checkpoint_id: string;
  type: string | null;
  checkpoint: string;
  stored: number;
}

/** A pending write of a channel asked for. */
interface WriteRow {
  checkpoint_id: string;
  task_id: string;
  channel: string;
  type: string | null;
  value: string;
}

/**
 * The ancestors of a checkpoint (`:id`, the latest without one), nearest first, up to the one
 * where every asked channel has been seen whole: `stored` has bit i set when the checkpoint's
 * `channel_values` holds channel i, `seen` the bits of it and every nearer one.
 */
function chainSql(channels: number): string {
  const bits =
    Array.from(
      { length: channels },
      (_, i) =>
        `(CASE WHEN c.type = 'json' AND json_type(CAST(c.checkpoint AS TEXT), json_extract(:paths, '$[${i}]')) IS NOT NULL THEN ${1 << i} ELSE 0 END)`,
    ).join(" | ") || "0";
  return `WITH RECURSIVE chain(checkpoint_id, parent_checkpoint_id, type, checkpoint, stored, seen, depth) AS (
    SELECT c.checkpoint_id, c.parent_checkpoint_id, c.type, c.checkpoint, ${bits}, ${bits}, 0 FROM checkpoints c
    WHERE c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = (
      SELECT t.parent_checkpoint_id FROM checkpoints t WHERE t.thread_id = :thread AND t.checkpoint_ns = :ns
        AND t.checkpoint_id = COALESCE(:id, (SELECT MAX(m.checkpoint_id) FROM checkpoints m
          WHERE m.thread_id = :thread AND m.checkpoint_ns = :ns)))
    UNION ALL
    SELECT c.checkpoint_id, c.parent_checkpoint_id, c.type, c.checkpoint, ${bits}, chain.seen | ${bits}, chain.depth + 1
    FROM chain JOIN checkpoints c ON c.thread_id = :thread AND c.checkpoint_ns = :ns
      AND c.checkpoint_id = chain.parent_checkpoint_id
    WHERE chain.seen <> :all)
  SELECT checkpoint_id, type, CASE WHEN stored <> 0 THEN checkpoint END AS checkpoint, stored FROM chain ORDER BY depth`;
}

/** The writes of the asked channels on the chain's checkpoints, in the order `SqliteSaver.getTuple` returns them. */
const WRITES_SQL = `SELECT w.checkpoint_id, w.task_id, w.channel, w.type, CAST(w.value AS TEXT) AS value FROM writes w
  WHERE w.thread_id = :thread AND w.checkpoint_ns = :ns
    AND w.checkpoint_id IN (SELECT value FROM json_each(:ids)) AND w.channel IN (SELECT value FROM json_each(:channels))
  ORDER BY w.checkpoint_id, w.task_id, w.idx`;

/** `SqliteSaver`'s own statements for a checkpoint and for a task's writes (a pause's or an error's replace). */
const INSERT_CHECKPOINT = `INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)`;
const insertWrites = (conflict: "REPLACE" | "IGNORE") =>
  `INSERT OR ${conflict} INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * LangGraph's official SQLite checkpointer, reading a `DeltaChannel`'s history in two queries.
 * `BaseCheckpointSaver.getDeltaChannelHistory` walks the ancestors with a `getTuple` each, which
 * parses every ancestor's checkpoint and all its writes: a thread loaded 100 steps after its last
 * full copy of the messages costs hundreds of queries. Here one recursive query walks the parent
 * chain and stops at the checkpoint where every asked channel is stored whole, a second reads
 * just those channels' writes on that chain; the result is the base class's, as LangGraph's
 * checkpointer conformance suite checks. `put` and `putWrites` are `SqliteSaver`'s, rows and
 * conflict handling alike, with their statements prepared once where `SqliteSaver` prepares them
 * on every call (13 times a run of two model calls, about as long as running them). Everything
 * else is `SqliteSaver`'s own.
 */
export class DeltaSqliteSaver extends SqliteSaver {
  private readonly chains = new Map<number, Statement>();
  private writesStatement?: Statement;
  private readonly statements = new StatementCache(this.db);
  /** Inserts a task's rows in one transaction, as `SqliteSaver.putWrites` does. */
  private readonly insertAll = this.db.transaction((statement: Statement, rows: unknown[][]) => {
    for (const row of rows) statement.run(...row);
  });

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) {
    this.setup();
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    const { thread_id: threadId, checkpoint_ns: namespace = "", checkpoint_id: parentId } = config.configurable;
    if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    const [[type, serializedCheckpoint], [metadataType, serializedMetadata]] = await Promise.all([
      this.serde.dumpsTyped(copyCheckpoint(checkpoint)),
      this.serde.dumpsTyped(metadata),
    ]);
    if (type !== metadataType) throw new Error("Failed to serialized checkpoint and metadata to the same type.");
    this.statements
      .get(INSERT_CHECKPOINT)
      .run(threadId, namespace, checkpoint.id, parentId, type, serializedCheckpoint, serializedMetadata);
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    this.setup();
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    const { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId } = config.configurable;
    if (!threadId) throw new Error("Missing thread_id field in config.configurable.");
    if (!checkpointId) throw new Error("Missing checkpoint_id field in config.configurable.");
    const special = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const rows = await Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, serialized] = await this.serde.dumpsTyped(value);
        return [threadId, namespace, checkpointId, taskId, WRITES_IDX_MAP[channel] ?? idx, channel, type, serialized];
      }),
    );
    this.insertAll(this.statements.get(insertWrites(special ? "REPLACE" : "IGNORE")), rows);
  }

  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    if (channels.length > MAX_WALKED_CHANNELS) return super.getDeltaChannelHistory(options);
    this.setup();
    const { thread_id: thread, checkpoint_ns: ns = "", checkpoint_id: id = null } = config.configurable ?? {};
    const paths = JSON.stringify(channels.map((channel) => `$.channel_values.${JSON.stringify(channel)}`));
    const chain = this.chainOf(channels.length).all({
      thread,
      ns,
      id,
      paths,
      all: 2 ** channels.length - 1,
    }) as ChainRow[];
    // A checkpoint of another format (never SqliteSaver's own JSON) is read the base class's way.
    if (chain.some((row) => row.type !== "json")) return super.getDeltaChannelHistory(options);

    const result: Record<string, DeltaChannelHistory> = {};
    const ends = walkEnds(
      channels,
      chain.map((row) => row.stored),
    );
    for (const [channel, { seedAt }] of ends) {
      result[channel] = { writes: [] };
      if (seedAt === -1) continue;
      const seedRow = chain[seedAt]!;
      const checkpoint = (await this.serde.loadsTyped(seedRow.type ?? "json", seedRow.checkpoint)) as {
        channel_values: Record<string, unknown>;
      };
      result[channel]!.seed = checkpoint.channel_values[channel];
    }

    const depthOf = new Map(chain.map((row, depth) => [row.checkpoint_id, depth]));
    this.writesStatement ??= this.db.prepare(WRITES_SQL);
    const rows = this.writesStatement.all({
      thread,
      ns,
      ids: JSON.stringify(chain.map((row) => row.checkpoint_id)),
      channels: JSON.stringify(channels),
    }) as WriteRow[];
    // Oldest checkpoint first; within one, by task and index, as the run applied them.
    rows.sort((a, b) => depthOf.get(b.checkpoint_id)! - depthOf.get(a.checkpoint_id)!);
    for (const row of rows) {
      if (depthOf.get(row.checkpoint_id)! > ends.get(row.channel)!.through) continue;
      const write: CheckpointPendingWrite = [
        row.task_id,
        row.channel,
        await this.serde.loadsTyped(row.type ?? "json", row.value ?? ""),
      ];
      result[row.channel]!.writes.push(write);
    }
    return result;
  }

  private chainOf(channels: number): Statement {
    let statement = this.chains.get(channels);
    if (!statement) {
      statement = this.db.prepare(chainSql(channels));
      this.chains.set(channels, statement);
    }
    return statement;
  }
}
