/** The SQL of `BatchedPostgresSaver`: `PostgresSaver`'s tables and conflict rules, written as whole statements. */

/** The checkpointer's tables, in the schema `PostgresSaver` uses by default. */
const TABLES = {
  checkpoints: `"public".checkpoints`,
  blobs: `"public".checkpoint_blobs`,
  writes: `"public".checkpoint_writes`,
} as const;

/** Rows one statement inserts at most; PostgreSQL takes up to 65,535 parameters a statement. */
export const ROWS_PER_STATEMENT = 1_000;

/** `rows` as a VALUES list whose parameters are appended to `params`. */
export function valuesOf(rows: unknown[][], params: unknown[]): string {
  return rows.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(", ")})`).join(", ");
}

/** A writes row's key within its checkpoint: task and index. */
const writeKey = (row: unknown[]) => `${String(row[3])}\u0000${String(row[4])}`;

/** The rows with the last of each key, as `PostgresSaver`'s upserts one after another leave them. */
export function lastOfEachKey(rows: unknown[][]): unknown[][] {
  return [...new Map(rows.map((row) => [writeKey(row), row])).values()];
}

/** The head of an INSERT of writes rows (its VALUES follow). */
export const INSERT_WRITES = `INSERT INTO ${TABLES.writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)`;
/** The head of an INSERT of channel blobs (its VALUES follow). */
const INSERT_BLOBS = `INSERT INTO ${TABLES.blobs} (thread_id, checkpoint_ns, channel, version, type, blob)`;
/** Saves one checkpoint row, replacing it when it exists (as `PostgresSaver` does). */
export const UPSERT_CHECKPOINT = `INSERT INTO ${TABLES.checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
/** The changed channels' blobs inserted by a data-modifying WITH before the statement that follows; "" without any. */
export function withBlobs(blobs: unknown[][], params: unknown[]): string {
  if (blobs.length === 0) return "";
  return `WITH blobs AS (${INSERT_BLOBS} VALUES ${valuesOf(blobs, params)} ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING) `;
}

/** A task's writes never replace its earlier ones; a pause's or an error's do (as in `PostgresSaver`). */
const ON_WRITE_CONFLICT = "ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)";
/** A task's regular writes keep the first of each key. */
export const KEEP_FIRST = `${ON_WRITE_CONFLICT} DO NOTHING`;
/** A pause's or an error's writes replace the task's earlier ones. */
export const REPLACE = `${ON_WRITE_CONFLICT} DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob`;

/**
 * The ancestors of checkpoint `$3` (the latest without one) of thread `$1`, namespace `$2`,
 * nearest first, up to the one where every channel of `$4` has been seen stored whole (a blob
 * of its version that is not `empty`): per checkpoint its depth, the mask of the channels it
 * stores, their blobs, and the writes of those channels made against it.
 */
export const DELTA_CHAIN = `WITH RECURSIVE chain AS (
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
export interface ChainRow {
  depth: number;
  stored: number;
  seeds: Uint8Array[][] | null;
  writes: Uint8Array[][] | null;
}
