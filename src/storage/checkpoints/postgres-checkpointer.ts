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
import {
  DELTA_CHAIN,
  INSERT_WRITES,
  KEEP_FIRST,
  REPLACE,
  ROWS_PER_STATEMENT,
  UPSERT_CHECKPOINT,
  lastOfEachKey,
  valuesOf,
  withBlobs,
  type ChainRow,
} from "./postgres-checkpoint-sql.js";

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
      await this.connections.query(`${withBlobs(blobs, params)}${UPSERT_CHECKPOINT}`, params);
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
