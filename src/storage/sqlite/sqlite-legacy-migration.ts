import type { Database } from "better-sqlite3";
import { ConfigError } from "../../contracts/errors.js";
import { decompressed } from "../checkpoints/blob-codec.js";

/**
 * The table where opspilot's `ChannelSqliteSaver` (up to commit e77a9b3) kept the channel
 * values it moved out of the checkpoint rows, one row per channel and version.
 */
const LEGACY_VALUES = "opspilot_checkpoint_blobs";

/** Checkpoint rows read at a time: a file's size is not held in memory at once. */
const PAGE_ROWS = 256;

/** A `checkpoints` row, keyed as `SqliteSaver` keys it. */
interface CheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  type: string | null;
  checkpoint: Uint8Array | string;
}

/** The part of a stored checkpoint the migration fills in. */
interface StoredCheckpoint {
  channel_values?: Record<string, unknown>;
  channel_versions?: Record<string, string | number>;
}

/** Rewrites checkpoints of opspilot's old channel-value format into `SqliteSaver`'s own, in one transaction; returns the threads rewritten (0 once done). */
export function migrateChannelSqlite(db: Database): number {
  if (!hasTable(db, LEGACY_VALUES)) return 0;
  return db
    .transaction(() => {
      // Another process may have migrated the file while this one waited for the write lock.
      if (!hasTable(db, LEGACY_VALUES)) return 0;
      const threads = hasTable(db, "checkpoints") ? rewriteCheckpoints(db) : 0;
      db.exec(`DROP TABLE ${LEGACY_VALUES}`);
      return threads;
    })
    .immediate();
}

function hasTable(db: Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * Puts each checkpoint's moved-out values back into its row. The `writes` rows (a pause's
 * interrupt, a step's saved results) were already stored as `SqliteSaver` stores them, and
 * stay as they are, against the same checkpoint ids.
 */
function rewriteCheckpoints(db: Database): number {
  const page = db.prepare(
    `SELECT thread_id, checkpoint_ns, checkpoint_id, type, checkpoint FROM checkpoints
     WHERE (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?)
     ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ${PAGE_ROWS}`,
  );
  const value = db.prepare(
    `SELECT type, value FROM ${LEGACY_VALUES} WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?`,
  );
  const update = db.prepare(
    "UPDATE checkpoints SET checkpoint = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  );
  const threads = new Set<string>();
  let after: [string, string, string] = ["", "", ""];
  for (;;) {
    const rows = page.all(...after) as CheckpointRow[];
    if (rows.length === 0) return threads.size;
    for (const row of rows) {
      const lookup = (channel: string, version: string | number) =>
        value.get(row.thread_id, row.checkpoint_ns, channel, String(version)) as LegacyValue | undefined;
      const rewritten = withValues(row, lookup);
      if (rewritten === undefined) continue;
      update.run(Buffer.from(rewritten), row.thread_id, row.checkpoint_ns, row.checkpoint_id);
      threads.add(row.thread_id);
    }
    const last = rows.at(-1)!;
    after = [last.thread_id, last.checkpoint_ns, last.checkpoint_id];
  }
}

/** A row of the old table. */
interface LegacyValue {
  type: string;
  value: Uint8Array;
}

/**
 * The row's checkpoint with every value the old saver moved out back under
 * `channel_values`, as JSON text; undefined when it lacks none. The old saver read a value
 * from the table only for a channel the row holds no value of, at the version the row lists.
 */
function withValues(
  row: CheckpointRow,
  lookup: (channel: string, version: string | number) => LegacyValue | undefined,
): string | undefined {
  // The old saver wrote JSON rows only (the JSON serializer's); anything else is no row of its.
  if ((row.type ?? "json") !== "json") return undefined;
  const parsed = JSON.parse(textOf(row.checkpoint)) as StoredCheckpoint;
  const values = { ...parsed.channel_values };
  let filled = false;
  for (const [channel, version] of Object.entries(parsed.channel_versions ?? {})) {
    const stored = Object.hasOwn(values, channel) ? undefined : lookup(channel, version);
    if (!stored) continue;
    values[channel] = storedJson(row, channel, stored);
    filled = true;
  }
  return filled ? JSON.stringify({ ...parsed, channel_values: values }) : undefined;
}

/**
 * A value's serialized form as the old saver wrote it (`serde.dumpsTyped`'s JSON, possibly
 * compressed), parsed but not revived: nested in the checkpoint's JSON it is what
 * `SqliteSaver.put` writes for that value. Reviving and saving again through `put` would be
 * asynchronous, so not one transaction on a synchronous open, and would not give back the
 * same bytes (a revived message serializes without the fields it had as undefined).
 */
function storedJson(row: CheckpointRow, channel: string, stored: LegacyValue): unknown {
  const [type, bytes] = decompressed(stored.type, stored.value);
  if (type !== "json")
    // Refused rather than dropped with the table: the file stays as it was, readable by the old version.
    throw new ConfigError(
      `The SQLite file's checkpoints cannot be migrated: channel ${channel} of thread ${row.thread_id} holds a "${stored.type}" value.`,
    );
  return JSON.parse(textOf(bytes));
}

function textOf(stored: Uint8Array | string): string {
  return typeof stored === "string" ? stored : Buffer.from(stored).toString("utf8");
}
