import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import {
  JsonPlusSerializer,
  WRITES_IDX_MAP,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  type ChannelVersions,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Database } from "better-sqlite3";
import { StatementCache } from "./statement-cache.js";
import { decompressed } from "./blob-codec.js";
import { HeldTasks, threadKey, type HeldTask } from "./held-writes.js";

const BLOBS_SCHEMA = `
CREATE TABLE IF NOT EXISTS opspilot_checkpoint_blobs (
  thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, channel TEXT NOT NULL, version TEXT NOT NULL,
  type TEXT NOT NULL, value BLOB, PRIMARY KEY (thread_id, checkpoint_ns, channel, version));`;

/**
 * Channel values up to this size (serialized as JSON) are kept in the checkpoint row, which
 * every put writes anyway, rather than as a row of their own: a step's small bookkeeping
 * channels then cost no insert and no delete of a superseded version.
 */
const INLINE_MAX_BYTES = 1024;

/**
 * Marks, among the stored versions, a channel whose value the latest checkpoint row holds, and
 * one the latest checkpoint holds no value of: neither has an older version's row left to remove.
 */
const INLINE = "inline";
const NO_VALUE = "none";

/** One task's pending writes, as `putWrites` receives them. */
interface TaskWrites {
  threadId: string;
  namespace: string;
  checkpointId: string;
  taskId: string;
  writes: PendingWrite[];
}

/** A task's pending writes held, under `latestOnly`, until the checkpoint that folds them in. */
interface HeldWrites extends TaskWrites, HeldTask {
  /** Settles the task's `putWrites` once the writes are committed, or known to be superseded by a committed checkpoint. */
  settle: (error?: unknown) => void;
}

/** A `writes` row; a pause's or an error's rows replace an earlier row of theirs, the others never do. */
interface WriteRow {
  special: boolean;
  values: unknown[];
}

/** Threads whose stored channel versions a saver remembers; the others ask the database. */
const THREADS_REMEMBERED = 256;

/** How a `ChannelSqliteSaver` keeps a thread's checkpoints. */
export interface ChannelSqliteSaverOptions {
  /**
   * Keep only each thread's latest checkpoint: every put removes, in its transaction, the
   * older checkpoints of its namespace, their pending writes and the values only they
   * referred to, so a thread's size follows its state, not its history. The latest
   * checkpoint and its pending writes (a pause, a crashed step's saved writes) are all that
   * reading, resuming and recovering a thread need; time travel to earlier checkpoints is
   * what goes. Off by default: the full history, as `SqliteSaver` keeps it.
   *
   * A task's pending writes are then held in memory until the checkpoint that follows
   * them, which folds them into its values: they are never written, serialized or removed.
   * The task's `putWrites` settles when that checkpoint commits. Writes no checkpoint follows
   * within 50 ms (a step that failed or stopped) commit on their own, as do a pause's or an
   * error's writes (at once, with whatever the thread holds) and a thread's held writes
   * before it is read.
   */
  latestOnly?: boolean;
  /**
   * Writes that commit with each checkpoint and each task's pending writes, run inside the
   * transaction after the saver's own rows (opspilot's step records: see
   * `SqliteStorage.drainRecords`). A throw rolls the save back.
   */
  alsoCommit?: () => void;
  /** Runs after each transaction that ran `alsoCommit` has committed. */
  afterCommit?: () => void;
}

const [OPEN_BRACKET, COMMA, CLOSE_BRACKET] = [0x5b, 0x2c, 0x5d];

const encoder = new TextEncoder();

/** Deeper values go through the serializer. */
const PLAIN_DEPTH = 32;

/**
 * Whether `JSON.stringify` writes `value` exactly as the JSON serializer does: null, booleans,
 * numbers, strings, arrays and plain objects, with no `undefined` (which the serializer
 * marks) and no class instances (messages, dates, maps), down to `PLAIN_DEPTH`.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const kind = typeof value;
  if (kind === "string" || kind === "boolean" || kind === "number") return true;
  if (kind !== "object" || depth >= PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlainJson(item, depth + 1)) return false;
    return true;
  }
  // The serializer writes an object named "Send" in its own way.
  if (Object.getPrototypeOf(value) !== Object.prototype || "lg_name" in (value as object)) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** Whether a task's writes are a pause's or an error's (LangGraph's special channels). */
function isSpecial(writes: PendingWrite[]): boolean {
  return writes.every(([channel]) => channel in WRITES_IDX_MAP);
}

/** Reads of a thread's latest checkpoint before one is returned even if a newer save or a compaction removed it meanwhile. */
const READ_ATTEMPTS = 3;

/**
 * LangGraph's official SQLite checkpointer, storing each channel's value once per version
 * (as the official PostgreSQL checkpointer does) instead of the whole state in every
 * checkpoint. A step that only changes small channels then writes only those, so the
 * cost of a checkpoint no longer grows with the conversation. Checkpoints written by
 * the plain `SqliteSaver` (values inline) still load unchanged. See `latestOnly` for
 * keeping each thread's state without its history.
 */
export class ChannelSqliteSaver extends SqliteSaver {
  /**
   * The version of each channel known to be stored, for the threads written most recently
   * (a bounded number, so a process serving many threads keeps no memory per thread).
   */
  private readonly storedVersions = new Map<string, Map<string, string>>();

  /** Serialized bytes of list items already stored, by item object (see `dumpsList`). */
  private readonly itemBytes = new WeakMap<object, Uint8Array>();

  private readonly statements: StatementCache;

  private readonly latestOnly: boolean;

  private readonly alsoCommit: () => void;

  private readonly afterCommit: () => void;

  /** Pending writes held under `latestOnly`; those no checkpoint folds in commit on their own. */
  private readonly held = new HeldTasks<HeldWrites>(
    (key) => void this.commitHeld(key).catch(() => undefined),
    () => this.db.open,
  );

  constructor(db: Database, options: ChannelSqliteSaverOptions = {}) {
    super(db);
    db.exec(BLOBS_SCHEMA);
    this.statements = new StatementCache(db);
    this.latestOnly = options.latestOnly ?? false;
    this.alsoCommit = options.alsoCommit ?? (() => undefined);
    this.afterCommit = options.afterCommit ?? (() => undefined);
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions = {},
  ): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string;
    const namespace = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    // The held writes of older checkpoints are folded into this one: its transaction would remove them were they
    // written, and their tasks' putWrites settle with it. Writes to this checkpoint or a newer one (a put that
    // comes late, with asynchronous durability) stay held for the checkpoint after them.
    const folded = this.held.takeBefore(threadKey(threadId, namespace), checkpoint.id);
    try {
      const saved = await this.save(threadId, namespace, config, checkpoint, metadata, newVersions);
      for (const task of folded) task.settle();
      return saved;
    } catch (error) {
      for (const task of folded) task.settle(error);
      throw error;
    }
  }

  private async save(
    threadId: string,
    namespace: string,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const rows: unknown[][] = [];
    const inline: Record<string, unknown> = {};
    const stored = this.storedVersionsOf(threadId, namespace);
    for (const [channel, value] of Object.entries(checkpoint.channel_values)) {
      const version = checkpoint.channel_versions[channel];
      if (version === undefined) continue;
      const known = stored.get(channel);
      if (
        !(channel in newVersions) &&
        known !== INLINE &&
        (known === String(version) || this.hasBlob(threadId, namespace, channel, version))
      ) {
        stored.set(channel, String(version));
        continue;
      }
      const [type, serialized] = Array.isArray(value) ? await this.dumpsList(value) : await this.dumps(value);
      // A small value rides in the checkpoint row; every checkpoint row holds its own copy.
      if (type === "json" && !Array.isArray(value) && serialized.byteLength <= INLINE_MAX_BYTES) {
        inline[channel] = value;
        continue;
      }
      rows.push([threadId, namespace, channel, String(version), type, serialized]);
    }
    // The checkpoint row as SqliteSaver.put writes it, with only the small values, in one transaction with the blobs.
    this.setup();
    const [[type, serializedCheckpoint], [, serializedMetadata]] = await Promise.all([
      this.dumps({ ...checkpoint, channel_values: inline }),
      this.dumps(metadata),
    ]);
    const parentId = config.configurable?.checkpoint_id as string | undefined;
    const insertBlob = this.statements.get("INSERT OR IGNORE INTO opspilot_checkpoint_blobs VALUES (?, ?, ?, ?, ?, ?)");
    const insertCheckpoint = this.statements.get(
      "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const superseded = this.supersededBy(threadId, namespace, checkpoint, newVersions, parentId, stored);
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
      superseded();
      this.alsoCommit();
    })();
    this.afterCommit();
    // Known to be stored once the transaction has committed.
    for (const row of rows) stored.set(row[2] as string, row[3] as string);
    for (const channel of Object.keys(inline)) stored.set(channel, INLINE);
    for (const channel of Object.keys(newVersions))
      if (!(channel in checkpoint.channel_values)) stored.set(channel, NO_VALUE);
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  /**
   * What a put removes in its transaction. The parent's pending writes are folded into the
   * new checkpoint, so nothing reads them again. With `latestOnly`, the older checkpoints of
   * the namespace and the older versions of the channels this put wrote go too.
   */
  private supersededBy(
    threadId: string,
    namespace: string,
    checkpoint: Checkpoint,
    newVersions: ChannelVersions,
    parentId: string | undefined,
    stored: Map<string, string>,
  ): () => void {
    if (!this.latestOnly) {
      if (parentId === undefined) return () => undefined;
      const dropWrites = this.statements.get(
        "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
      );
      return () => dropWrites.run(threadId, namespace, parentId);
    }
    const dropCheckpoints = this.statements.get(
      "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?",
    );
    const dropWrites = this.statements.get(
      "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?",
    );
    const dropValues = this.statements.get(
      "DELETE FROM opspilot_checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND CAST(version AS INTEGER) < ?",
    );
    // Versions are counters (LangGraph's default); other kinds of versions are left to `compactThread`.
    // A channel whose previous value was inline, or absent, left no row of an older version behind.
    const rewritten = Object.keys(newVersions)
      .filter((channel) => stored.get(channel) !== INLINE && stored.get(channel) !== NO_VALUE)
      .map((channel) => [channel, checkpoint.channel_versions[channel]] as const)
      .filter((entry): entry is readonly [string, number] => typeof entry[1] === "number");
    return () => {
      // Checkpoint ids (uuid6) sort by time: an older put arriving late never removes a newer checkpoint.
      dropCheckpoints.run(threadId, namespace, checkpoint.id);
      dropWrites.run(threadId, namespace, checkpoint.id);
      for (const [channel, version] of rewritten) dropValues.run(threadId, namespace, channel, version);
    };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    this.setup();
    const { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId } = config.configurable ?? {};
    if (!threadId) throw new Error("Missing thread_id field in config.configurable.");
    if (!checkpointId) throw new Error("Missing checkpoint_id field in config.configurable.");
    const task: TaskWrites = {
      threadId: threadId as string,
      namespace: (namespace as string | undefined) ?? "",
      checkpointId: checkpointId as string,
      taskId,
      writes,
    };
    const key = threadKey(task.threadId, task.namespace);
    if (this.latestOnly && !isSpecial(writes)) {
      return new Promise((resolve, reject) => {
        const settle = (error?: unknown) => (error === undefined ? resolve() : reject(error));
        this.held.hold(key, { ...task, settle, heldAt: Date.now() });
      });
    }
    // A pause or an error ends the step with no checkpoint after it: it commits now, with what the thread holds.
    await this.commitHeld(key, task);
  }

  /**
   * Commits the writes held for every thread (see `latestOnly`): those no checkpoint folded
   * in, and before a closing connection stops taking them.
   */
  async commitHeldWrites(): Promise<void> {
    await Promise.all(this.held.keysOf(undefined).map((key) => this.commitHeld(key).catch(() => undefined)));
  }

  /** Commits a thread's held writes, and `extra` after them, in one transaction; each held task's `putWrites` settles with it. */
  private async commitHeld(key: string, extra?: TaskWrites): Promise<void> {
    const held = this.held.take(key);
    try {
      const rows = await this.rowsOf(extra ? [...held, extra] : held);
      this.db.transaction(() => {
        this.insertWrites(rows);
        // A checkpoint saved while the rows were made has folded them in already.
        if (this.latestOnly && held.length > 0) this.dropFoldedWrites(held[0]!);
        this.alsoCommit();
      })();
    } catch (error) {
      for (const task of held) task.settle(error);
      throw error;
    }
    this.afterCommit();
    for (const task of held) task.settle();
  }

  private dropFoldedWrites({ threadId, namespace }: TaskWrites): void {
    this.statements
      .get(
        `DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id <
           (SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?)`,
      )
      .run(threadId, namespace, threadId, namespace);
  }

  /** Commits the held writes of a thread's namespaces (of every thread, without one) before they are read. */
  private async commitHeldOf(threadId: string | undefined): Promise<void> {
    for (const key of this.held.keysOf(threadId)) await this.commitHeld(key);
  }

  /** The `writes` rows of tasks' writes, as SqliteSaver.putWrites makes them, with the statement each is inserted by. */
  private async rowsOf(tasks: TaskWrites[]): Promise<WriteRow[]> {
    return Promise.all(
      tasks.flatMap((task) => {
        const special = isSpecial(task.writes);
        const { threadId, namespace, checkpointId, taskId } = task;
        return task.writes.map(async ([channel, value], idx) => {
          const [type, serialized] = await this.dumps(value);
          const index = WRITES_IDX_MAP[channel] ?? idx;
          return { special, values: [threadId, namespace, checkpointId, taskId, index, channel, type, serialized] };
        });
      }),
    );
  }

  /** Inserts `writes` rows; call it inside a transaction. */
  private insertWrites(rows: WriteRow[]): void {
    if (rows.length === 0) return;
    const columns =
      "(thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    const replace = this.statements.get(`INSERT OR REPLACE INTO writes ${columns}`);
    const ignore = this.statements.get(`INSERT OR IGNORE INTO writes ${columns}`);
    for (const row of rows) (row.special ? replace : ignore).run(...row.values);
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.commitHeldOf(config.configurable?.thread_id as string | undefined);
    for (let attempt = 1; ; attempt++) {
      const tuple = await super.getTuple(config);
      if (!tuple) return undefined;
      const loaded = await this.withValues(tuple);
      // A newer checkpoint saved (or the thread compacted) while this one was being read: it is gone, read the new latest.
      if (config.configurable?.checkpoint_id !== undefined || attempt >= READ_ATTEMPTS || this.stillSaved(loaded))
        return loaded;
    }
  }

  override async *list(
    config: RunnableConfig,
    options?: Parameters<SqliteSaver["list"]>[1],
  ): AsyncGenerator<CheckpointTuple> {
    await this.commitHeldOf(config.configurable?.thread_id as string | undefined);
    for await (const tuple of super.list(config, options)) yield await this.withValues(tuple);
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.commitHeldOf(threadId);
    await super.deleteThread(threadId);
    this.statements.get("DELETE FROM opspilot_checkpoint_blobs WHERE thread_id = ?").run(threadId);
    for (const key of this.storedVersions.keys())
      if (key.startsWith(`${threadId}\u0000`)) this.storedVersions.delete(key);
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
      if (row) values[channel] = await this.serde.loadsTyped(...decompressed(row.type, row.value));
    }
    return { ...tuple, checkpoint: { ...tuple.checkpoint, channel_values: values } };
  }

  /**
   * A value as the serializer stores it. Plain JSON data (the small channels, most writes) is
   * written by `JSON.stringify` alone, which gives the serializer's bytes without its walk
   * for cycles and its replacer call per field; anything else goes through the serializer.
   */
  private async dumps(value: unknown): Promise<[string, Uint8Array]> {
    if (this.serde instanceof JsonPlusSerializer && isPlainJson(value, 0))
      return ["json", encoder.encode(JSON.stringify(value))];
    return this.serde.dumpsTyped(value);
  }

  /**
   * A list (the messages) serialized as the serializer would, from each item's bytes, kept
   * per item object: a list that grew by two messages costs two messages, not the thread.
   * Items in the state are never changed in place (LangGraph's reducer replaces a message by id).
   */
  private async dumpsList(list: unknown[]): Promise<[string, Uint8Array]> {
    const parts: Uint8Array[] = [];
    for (const item of list) {
      let bytes = typeof item === "object" && item !== null ? this.itemBytes.get(item) : undefined;
      if (!bytes) {
        const [type, serialized] = await this.serde.dumpsTyped(item);
        // Only JSON composes item by item; anything else is serialized whole.
        if (type !== "json") return this.serde.dumpsTyped(list);
        bytes = serialized;
        if (typeof item === "object" && item !== null) this.itemBytes.set(item, bytes);
      }
      parts.push(bytes);
    }
    const joined = new Uint8Array(
      2 + parts.reduce((sum, part) => sum + part.byteLength, 0) + Math.max(0, parts.length - 1),
    );
    joined[0] = OPEN_BRACKET;
    let offset = 1;
    parts.forEach((part, i) => {
      if (i > 0) joined[offset++] = COMMA;
      joined.set(part, offset);
      offset += part.byteLength;
    });
    joined[offset] = CLOSE_BRACKET;
    return ["json", joined];
  }

  private stillSaved(tuple: CheckpointTuple): boolean {
    const { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: id } = tuple.config.configurable ?? {};
    return (
      this.statements
        .get("SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?")
        .get(threadId, namespace ?? "", id) !== undefined
    );
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

  /** The stored versions of a thread's channels, made the most recently used (the least recently used thread goes). */
  private storedVersionsOf(threadId: string, namespace: string): Map<string, string> {
    const key = threadKey(threadId, namespace);
    const versions = this.storedVersions.get(key) ?? new Map<string, string>();
    this.storedVersions.delete(key);
    this.storedVersions.set(key, versions);
    if (this.storedVersions.size > THREADS_REMEMBERED)
      this.storedVersions.delete(this.storedVersions.keys().next().value as string);
    return versions;
  }
}
