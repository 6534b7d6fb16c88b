import type pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import {
  WRITES_IDX_MAP,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";

/** The checkpointer's tables, in the schema `PostgresSaver` uses by default. */
const TABLES = {
  checkpoints: `"public".checkpoints`,
  blobs: `"public".checkpoint_blobs`,
  writes: `"public".checkpoint_writes`,
} as const;

/** Rows one statement inserts at most; PostgreSQL takes up to 65,535 parameters a statement. */
const ROWS_PER_STATEMENT = 1_000;

/** `$n, $n+1, …` groups of `width` for `rows` rows, numbered from `first`. */
function valuesList(rows: number, width: number, first = 1): string {
  return Array.from(
    { length: rows },
    (_, row) => `(${Array.from({ length: width }, (_, column) => `$${first + row * width + column}`).join(", ")})`,
  ).join(", ");
}

/**
 * LangGraph's official PostgreSQL checkpointer, saving each checkpoint and each task's writes in
 * one statement instead of a transaction of one statement per row. `PostgresSaver.put` sends
 * BEGIN, an INSERT per changed channel, the checkpoint's INSERT and COMMIT, each a round trip,
 * and `putWrites` an INSERT per write between BEGIN and COMMIT: about 23 round trips a step of
 * opspilot's loop. Here the changed channels ride in a data-modifying `WITH` of the
 * checkpoint's INSERT, and a task's writes are one multi-row INSERT: one round trip each, as
 * atomic as the transaction was (a single statement commits whole or not at all). The rows and
 * the SQL's conflict handling are `PostgresSaver`'s own, so either class reads what the other wrote.
 */
export class BatchedPostgresSaver extends PostgresSaver {
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
    // More channels than one statement takes (never in opspilot's graph): PostgresSaver's own transaction.
    if (blobs.length > ROWS_PER_STATEMENT) return super.put(config, checkpoint, metadata, newVersions);
    const upsertCheckpoint = `INSERT INTO ${TABLES.checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
      VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
    // A data-modifying WITH runs once and to completion, whether or not the INSERT after it reads it.
    const text =
      blobs.length === 0
        ? upsertCheckpoint
        : `WITH blobs AS (
            INSERT INTO ${TABLES.blobs} (thread_id, checkpoint_ns, channel, version, type, blob)
            VALUES ${valuesList(blobs.length, 6, 7)}
            ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING)
          ${upsertCheckpoint}`;
    const checkpointRow = [
      threadId,
      namespace,
      checkpoint.id,
      parentId,
      this._dumpCheckpoint(checkpoint),
      serializedMetadata,
    ];
    await this.connections.query(text, [...checkpointRow, ...blobs.flat()]);
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    if (writes.length === 0) return;
    if (writes.length > ROWS_PER_STATEMENT) return super.putWrites(config, writes, taskId);
    const { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId } = config.configurable ?? {};
    // A pause's or an error's writes replace the earlier ones of the task; other writes never do.
    const conflict = writes.every(([channel]) => channel in WRITES_IDX_MAP)
      ? "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob"
      : "DO NOTHING";
    const rows = await this._dumpWrites(threadId, namespace, checkpointId, taskId, writes);
    await this.connections.query(
      `INSERT INTO ${TABLES.writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
        VALUES ${valuesList(rows.length, 8)}
        ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${conflict}`,
      rows.flat(),
    );
  }
}
