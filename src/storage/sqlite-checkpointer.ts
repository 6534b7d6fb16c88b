import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Checkpoint, CheckpointMetadata, CheckpointTuple, ChannelVersions } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Database } from "better-sqlite3";
import { StatementCache } from "./statement-cache.js";

const BLOBS_SCHEMA = `
CREATE TABLE IF NOT EXISTS opspilot_checkpoint_blobs (
  thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, channel TEXT NOT NULL, version TEXT NOT NULL,
  type TEXT NOT NULL, value BLOB, PRIMARY KEY (thread_id, checkpoint_ns, channel, version));`;

const KNOWN_KEYS_LIMIT = 100_000;

/**
 * LangGraph's official SQLite checkpointer, storing each channel's value once per version
 * (as the official PostgreSQL checkpointer does) instead of the whole state in every
 * checkpoint. A step that only changes small channels then writes only those, so the
 * cost of a checkpoint no longer grows with the conversation. Checkpoints written by
 * the plain `SqliteSaver` (values inline) still load unchanged.
 */
export class ChannelSqliteSaver extends SqliteSaver {
  private readonly knownKeys = new Set<string>();

  private readonly statements: StatementCache;

  constructor(db: Database) {
    super(db);
    db.exec(BLOBS_SCHEMA);
    this.statements = new StatementCache(db);
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions = {},
  ): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string;
    const namespace = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const rows: unknown[][] = [];
    for (const [channel, value] of Object.entries(checkpoint.channel_values)) {
      const version = checkpoint.channel_versions[channel];
      if (version === undefined) continue;
      const key = `${threadId}\u0000${namespace}\u0000${channel}\u0000${String(version)}`;
      if (!(channel in newVersions) && (this.knownKeys.has(key) || this.hasBlob(threadId, namespace, channel, version)))
        continue;
      const [type, serialized] = await this.serde.dumpsTyped(value);
      rows.push([threadId, namespace, channel, String(version), type, serialized]);
      this.remember(key);
    }
    // The checkpoint row as SqliteSaver.put writes it, values left out, in one transaction with its blobs.
    this.setup();
    const [[type, serializedCheckpoint], [, serializedMetadata]] = await Promise.all([
      this.serde.dumpsTyped({ ...checkpoint, channel_values: {} }),
      this.serde.dumpsTyped(metadata),
    ]);
    const parentId = config.configurable?.checkpoint_id as string | undefined;
    const insertBlob = this.statements.get("INSERT OR IGNORE INTO opspilot_checkpoint_blobs VALUES (?, ?, ?, ?, ?, ?)");
    const insertCheckpoint = this.statements.get(
      "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.db.transaction(() => {
      rows.forEach((row) => insertBlob.run(...row));
      insertCheckpoint.run(
        threadId,
        namespace,
        checkpoint.id,
        parentId,
        type,
        serializedCheckpoint,
        serializedMetadata,
      );
    })();
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const tuple = await super.getTuple(config);
    return tuple ? this.withValues(tuple) : undefined;
  }

  override async *list(
    config: RunnableConfig,
    options?: Parameters<SqliteSaver["list"]>[1],
  ): AsyncGenerator<CheckpointTuple> {
    for await (const tuple of super.list(config, options)) yield await this.withValues(tuple);
  }

  override async deleteThread(threadId: string): Promise<void> {
    await super.deleteThread(threadId);
    this.statements.get("DELETE FROM opspilot_checkpoint_blobs WHERE thread_id = ?").run(threadId);
    this.knownKeys.clear();
  }

  private async withValues(tuple: CheckpointTuple): Promise<CheckpointTuple> {
    const threadId = tuple.config.configurable?.thread_id as string;
    const namespace = (tuple.config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const select = this.statements.get(
      "SELECT type, value FROM opspilot_checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
    );
    const values = { ...tuple.checkpoint.channel_values };
    for (const [channel, version] of Object.entries(tuple.checkpoint.channel_versions)) {
      if (channel in values) continue;
      const row = select.get(threadId, namespace, channel, String(version)) as
        { type: string; value: Uint8Array } | undefined;
      if (row) values[channel] = await this.serde.loadsTyped(row.type, row.value);
    }
    return { ...tuple, checkpoint: { ...tuple.checkpoint, channel_values: values } };
  }

  private hasBlob(threadId: string, namespace: string, channel: string, version: string | number): boolean {
    return (
      this.statements
        .get(
          "SELECT 1 FROM opspilot_checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
        )
        .get(threadId, namespace, channel, String(version)) !== undefined
    );
  }

  private remember(key: string): void {
    if (this.knownKeys.size >= KNOWN_KEYS_LIMIT) this.knownKeys.clear();
    this.knownKeys.add(key);
  }
}
