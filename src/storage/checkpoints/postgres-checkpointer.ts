import type pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import {
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  writesSortKey,
  type CheckpointPendingWrite,
  type DeltaChannelHistory,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointListOptions,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { MAX_WALKED_CHANNELS, walkEnds } from "./delta-base.js";

/** The checkpointer's tables, in the schema `PostgresSaver` uses by default. */
const TABLES = {
  checkpoints: `"public".checkpoints`,
  blobs: `"public".checkpoint_blobs`,
  writes: `"public".checkpoint_writes`,
} as const;

/** Rows one statement inserts at most; PostgreSQL takes up to 65,535 parameters a statement. */
const ROWS_PER_STATEMENT = 1_000;

/** `rows` as a VALUES list whose parameters are appended to `params`. */
function valuesOf(rows: unknown[][], params: unknown[]): string {
  return rows.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(", ")})`).join(", ");
}

/** A writes row's key within its checkpoint: task and index. */
const writeKey = (row: unknown[]) => `${String(row[3])}\u0000${String(row[4])}`;

/** The rows with the last of each key, as `PostgresSaver`'s upserts one after another leave them. */
function lastOfEachKey(rows: unknown[][]): unknown[][] {
  return [...new Map(rows.map((row) => [writeKey(row), row])).values()];
}

const INSERT_WRITES = `INSERT INTO ${TABLES.writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)`;
const INSERT_BLOBS = `INSERT INTO ${TABLES.blobs} (thread_id, checkpoint_ns, channel, version, type, blob)`;
const UPSERT_CHECKPOINT = `INSERT INTO ${TABLES.checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
/** A task's writes never replace its earlier ones; a pause's or an error's do (as in `PostgresSaver`). */
const ON_WRITE_CONFLICT = "ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)";
const KEEP_FIRST = `${ON_WRITE_CONFLICT} DO NOTHING`;
const REPLACE = `${ON_WRITE_CONFLICT} DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob`;

/**
 * The ancestors of checkpoint `$3` (the latest without one) of thread `$1`, namespace `$2`,
 * nearest first, up to the one where every channel of `$4` has been seen stored whole (a blob
 * of its version that is not `empty`): per checkpoint its depth, the mask of the channels it
 * stores, their blobs, and the writes of those channels made against it.
 */
const DELTA_CHAIN = `WITH RECURSIVE chain AS (
    SELECT c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, 0 AS depth, s.stored, s.stored AS seen
    FROM ${TABLES.checkpoints} c, LATERAL (SELECT COALESCE(bit_or(1 << (n.i - 1)::int), 0) AS stored
      FROM unnest($4::text[]) WITH ORDINALITY AS n(channel, i) JOIN ${TABLES.blobs} b ON b.thread_id = c.thread_id
        AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = n.channel
        AND b.version = c.checkpoint -> 'channel_versions' ->> n.channel AND b.type <> 'empty') s
    WHERE c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id = (SELECT t.parent_checkpoint_id
      FROM ${TABLES.checkpoints} t WHERE t.thread_id = $1 AND t.checkpoint_ns = $2 AND t.checkpoint_id =
        COALESCE($3, (SELECT max(m.checkpoint_id) FROM ${TABLES.checkpoints} m WHERE m.thread_id = $1 AND m.checkpoint_ns = $2)))
  UNION ALL
    SELECT c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, chain.depth + 1, s.stored, chain.seen | s.stored
    FROM chain JOIN ${TABLES.checkpoints} c ON c.thread_id = $1 AND c.checkpoint_ns = $2
      AND c.checkpoint_id = chain.parent_checkpoint_id,
    LATERAL (SELECT COALESCE(bit_or(1 << (n.i - 1)::int), 0) AS stored
      FROM unnest($4::text[]) WITH ORDINALITY AS n(channel, i) JOIN ${TABLES.blobs} b ON b.thread_id = c.thread_id
        AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = n.channel
        AND b.version = c.checkpoint -> 'channel_versions' ->> n.channel AND b.type <> 'empty') s
    WHERE chain.seen <> $5)
  SELECT chain.depth, chain.stored,
    (SELECT array_agg(array[b.channel::bytea, b.type::bytea, b.blob]) FROM unnest($4::text[]) AS n(channel)
      JOIN ${TABLES.blobs} b ON b.thread_id = $1 AND b.checkpoint_ns = $2 AND b.channel = n.channel
        AND b.version = chain.checkpoint -> 'channel_versions' ->> n.channel AND b.type <> 'empty') AS seeds,
    (SELECT array_agg(array[w.task_id::bytea, w.channel::bytea, w.type::bytea, w.blob, w.idx::text::bytea])
      FROM ${TABLES.writes} w WHERE w.thread_id = $1 AND w.checkpoint_ns = $2
        AND w.checkpoint_id = chain.checkpoint_id AND w.channel = ANY($4::text[])) AS writes
  FROM chain ORDER BY chain.depth`;

/** A row of {@link DELTA_CHAIN}. */
interface ChainRow {
  depth: number;
  stored: number;
  seeds: Uint8Array[][] | null;
  writes: Uint8Array[][] | null;
}

/**
 * LangGraph's official PostgreSQL checkpointer, saving a superstep in two round trips where
 * `PostgresSaver` sends a transaction of one statement per row. `PostgresSaver.put` sends BEGIN,
 * an INSERT per changed channel, the checkpoint's INSERT and COMMIT, each a round trip, and
 * `putWrites` an INSERT per write between BEGIN and COMMIT. Here a task's writes are one
 * statement, and the changed channels and the checkpoint another (the channels in a
 * data-modifying `WITH`), with bound parameters, as atomic as the transactions were.
 * `putWrites` settles when its statement commits, as `PostgresSaver`'s does: LangGraph awaits
 * the writes of a delta channel before it puts the checkpoint after them, so a checkpoint is
 * never saved without the writes it is rebuilt from. A read of a thread waits for the saves
 * of its writes under way. The rows and their conflict handling are `PostgresSaver`'s own, so
 * either class reads what the other wrote.
 */
export class BatchedPostgresSaver extends PostgresSaver {
  /** Saves of writes under way, by thread: a read of their thread waits for them. */
  private readonly saving = new Set<{ threadId: string; done: Promise<unknown> }>();

  constructor(private readonly connections: pg.Pool) {
    super(connections);
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error(`Missing "configurable" field in "config" param`);
    const { thread_id: threadId, checkpoint_ns: namespace = "", checkpoint_id: parentId } = config.configurable;
    const [blobs, serializedMetadata] = await Promise.all([
      this._dumpBlobs(threadId, namespace, checkpoint.channel_values, newVersions),
      this._dumpMetadata(metadata),
    ]);
    if (blobs.length > ROWS_PER_STATEMENT) {
      // More channels than one statement takes (never in opspilot's graph): PostgresSaver's own transaction.
      await super.put(config, checkpoint, metadata, newVersions);
    } else {
      const params: unknown[] = [
        threadId,
        namespace,
        checkpoint.id,
        parentId,
        this._dumpCheckpoint(checkpoint),
        serializedMetadata,
      ];
      // A data-modifying WITH runs once and to completion, whether or not the statement reads it.
      const channels =
        blobs.length > 0
          ? `WITH blobs AS (${INSERT_BLOBS} VALUES ${valuesOf(blobs, params)} ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING) `
          : "";
      await this.connections.query(`${channels}${UPSERT_CHECKPOINT}`, params);
    }
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    if (writes.length === 0) return;
    const {
      thread_id: threadId,
      checkpoint_ns: namespace = "",
      checkpoint_id: checkpointId,
    } = config.configurable ?? {};
    if (!threadId) throw new Error("Missing thread_id field in config.configurable.");
    if (!checkpointId) throw new Error("Missing checkpoint_id field in config.configurable.");
    // A pause's or an error's writes replace the task's earlier ones; a task's regular writes never do.
    const special = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const saved = this._dumpWrites(threadId, namespace, checkpointId, taskId, writes).then((rows) =>
      this.insertWrites(special ? lastOfEachKey(rows) : rows, special ? REPLACE : KEEP_FIRST),
    );
    const save = { threadId: threadId as string, done: saved.catch(() => undefined) };
    this.saving.add(save);
    void save.done.then(() => this.saving.delete(save));
    return saved;
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.savedOf(config.configurable?.thread_id as string | undefined);
    return super.getTuple(config);
  }

  /**
   * A `DeltaChannel`'s history in one statement, where `BaseCheckpointSaver`'s walk sends a
   * `getTuple` per ancestor (hundreds for a thread 100 steps past its last full copy of the
   * messages). Same result, as the conformance suite checks.
   */
  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    if (channels.length > MAX_WALKED_CHANNELS) return super.getDeltaChannelHistory(options);
    const {
      thread_id: threadId,
      checkpoint_ns: namespace = "",
      checkpoint_id: checkpointId = null,
    } = config.configurable ?? {};
    await this.savedOf(threadId as string | undefined);
    const { rows } = await this.connections.query<ChainRow>(DELTA_CHAIN, [
      threadId,
      namespace,
      checkpointId,
      channels,
      2 ** channels.length - 1,
    ]);
    const decoder = new TextDecoder();
    const result: Record<string, DeltaChannelHistory> = {};
    const ends = walkEnds(
      channels,
      rows.map((row) => row.stored),
    );
    for (const [channel, { seedAt }] of ends) {
      result[channel] = { writes: [] };
      const seed = seedAt === -1 ? undefined : rows[seedAt]!.seeds?.find(([name]) => decoder.decode(name) === channel);
      if (seed) result[channel]!.seed = await this.serde.loadsTyped(decoder.decode(seed[1]), seed[2]!);
    }
    // Oldest checkpoint first; within one, in the order the run applied its writes.
    for (const row of [...rows].reverse()) {
      const writes = (row.writes ?? [])
        .map(([task, channel, type, blob, idx]) => ({
          task: decoder.decode(task),
          channel: decoder.decode(channel),
          type: decoder.decode(type),
          blob: blob!,
          idx: Number(decoder.decode(idx)),
        }))
        .filter((write) => row.depth <= ends.get(write.channel)!.through)
        .sort((a, b) => compareWritesSortKeys(writesSortKey("", a.task, a.idx), writesSortKey("", b.task, b.idx)));
      for (const write of writes) {
        const pending: CheckpointPendingWrite = [
          write.task,
          write.channel,
          await this.serde.loadsTyped(write.type, write.blob),
        ];
        result[write.channel]!.writes.push(pending);
      }
    }
    return result;
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    await this.savedOf(config.configurable?.thread_id as string | undefined);
    yield* super.list(config, options);
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.savedOf(threadId);
    await super.deleteThread(threadId);
  }

  /** Waits for the writes under way, then closes the pool. */
  override async end(): Promise<void> {
    await this.savedOf(undefined);
    await super.end();
  }

  /** Inserts writes rows in statements of at most `ROWS_PER_STATEMENT`, each committed alone. */
  private async insertWrites(rows: unknown[][], conflict: string): Promise<void> {
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const params: unknown[] = [];
      const values = valuesOf(rows.slice(start, start + ROWS_PER_STATEMENT), params);
      await this.connections.query(`${INSERT_WRITES} VALUES ${values} ${conflict}`, params);
    }
  }

  /** Waits for the saves of a thread's writes under way (of every thread's, without one). */
  private async savedOf(threadId: string | undefined): Promise<void> {
    const pending = [...this.saving].filter((save) => threadId === undefined || save.threadId === threadId);
    await Promise.all(pending.map((save) => save.done));
  }
}
