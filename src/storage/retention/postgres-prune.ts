import type pg from "pg";
import { emptyPruneReport, INTERRUPT_CHANNEL, oldThreads, type CompactReport, type PruneReport } from "./prune.js";
import { inTransaction } from "../postgres/postgres-schema.js";
import { utcDay } from "../records/usage-day.js";
import { postgresRebuildBase } from "../checkpoints/delta-base.js";
import { incidentPruneStatements, THREAD_COORDINATION_TABLES } from "./incident-prune.js";

/** The latest checkpoint of each thread and namespace (`PostgresSaver`'s tables): its time and whether a pause waits in it. */
const LATEST_CHECKPOINTS = `
SELECT DISTINCT ON (c.thread_id, c.checkpoint_ns) c.thread_id, c.checkpoint_ns, c.checkpoint_id,
  c.checkpoint ->> 'ts' AS ts,
  EXISTS (SELECT 1 FROM checkpoint_writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns
    AND w.checkpoint_id = c.checkpoint_id AND w.channel = '${INTERRUPT_CHANNEL}') AS paused
FROM checkpoints c ORDER BY c.thread_id, c.checkpoint_ns, c.checkpoint_id DESC`;

/** Everything the removed threads (`$1`, an array) own, children first, and where each is counted. */
const THREAD_TABLES: ReadonlyArray<[keyof PruneReport | undefined, string]> = [
  ["decisions", "DELETE FROM opspilot_decisions WHERE thread_id = ANY($1)"],
  ["steps", "DELETE FROM opspilot_steps WHERE run_id IN (SELECT run_id FROM opspilot_runs WHERE thread_id = ANY($1))"],
  ["toolCalls", "DELETE FROM opspilot_tool_calls WHERE thread_id = ANY($1)"],
  [undefined, "DELETE FROM opspilot_run_limits WHERE thread_id = ANY($1)"],
  ["runs", "DELETE FROM opspilot_runs WHERE thread_id = ANY($1)"],
  ["events", "DELETE FROM opspilot_events WHERE thread_id = ANY($1)"],
  [undefined, "DELETE FROM opspilot_event_seqs WHERE thread_id = ANY($1)"],
  ["results", "DELETE FROM opspilot_results WHERE thread_id = ANY($1)"],
  [undefined, "DELETE FROM opspilot_journal WHERE thread_id = ANY($1)"],
  ["writes", "DELETE FROM checkpoint_writes WHERE thread_id = ANY($1)"],
  ["blobs", "DELETE FROM checkpoint_blobs WHERE thread_id = ANY($1)"],
  ["checkpoints", "DELETE FROM checkpoints WHERE thread_id = ANY($1)"],
  ["threads", "DELETE FROM opspilot_threads WHERE thread_id = ANY($1)"],
  ...THREAD_COORDINATION_TABLES.map((table): [undefined, string] => [
    undefined,
    `DELETE FROM ${table} WHERE thread_id = ANY($1)`,
  ]),
];

/** The records of runs that ended before `$1`. */
const ENDED_RUNS = `SELECT run_id FROM opspilot_runs WHERE finished_at < $1 AND stop_reason IS NOT NULL
  AND stop_reason <> 'interrupted'`;

/**
 * Statements that prune what every kept thread no longer needs, in order, each with its
 * counter; `$1` is the cut-off, in milliseconds in opspilot's tables and as ISO time in the checkpoints.
 */
const KEPT_THREADS: ReadonlyArray<[keyof PruneReport, string]> = [
  // Never a thread's latest (it holds its current state and any waiting pause), nor one that a
  // kept checkpoint is rebuilt from: only those older than the newest base before the cut-off.
  [
    "checkpoints",
    // Each thread's base is found once (materialized), not again for every checkpoint it compares.
    `WITH bases AS MATERIALIZED (SELECT t.thread_id, t.checkpoint_ns,
         ${postgresRebuildBase("t", " AND c.checkpoint ->> 'ts' < $1")} AS base
       FROM (SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints) t)
     DELETE FROM checkpoints d USING bases b WHERE b.thread_id = d.thread_id AND b.checkpoint_ns = d.checkpoint_ns
       AND d.checkpoint ->> 'ts' < $1 AND d.checkpoint_id < b.base AND d.checkpoint_id < (SELECT MAX(m.checkpoint_id)
       FROM checkpoints m WHERE m.thread_id = d.thread_id AND m.checkpoint_ns = d.checkpoint_ns)`,
  ],
  [
    "writes",
    `DELETE FROM checkpoint_writes w WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id
       AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`,
  ],
  [
    "blobs",
    `DELETE FROM checkpoint_blobs b WHERE NOT EXISTS (SELECT 1 FROM checkpoints c,
       jsonb_each_text(c.checkpoint -> 'channel_versions') v WHERE c.thread_id = b.thread_id
       AND c.checkpoint_ns = b.checkpoint_ns AND v.key = b.channel AND v.value = b.version)`,
  ],
  [
    "decisions",
    `DELETE FROM opspilot_decisions d WHERE EXISTS (SELECT 1 FROM opspilot_tool_calls c WHERE c.thread_id = d.thread_id
       AND c.call_id = d.call_id AND c.run_id IN (${ENDED_RUNS}))`,
  ],
  ["steps", `DELETE FROM opspilot_steps WHERE run_id IN (${ENDED_RUNS})`],
  ["toolCalls", `DELETE FROM opspilot_tool_calls WHERE run_id IN (${ENDED_RUNS})`],
  ["runs", `DELETE FROM opspilot_runs WHERE run_id IN (${ENDED_RUNS})`],
  ["results", "DELETE FROM opspilot_results WHERE created_at < $1"],
  // The event numbers come from opspilot_event_seqs, but the last event stays, as in SQLite.
  [
    "events",
    `DELETE FROM opspilot_events e WHERE e.created_at < $1 AND e.seq < (SELECT MAX(l.seq) FROM opspilot_events l
       WHERE l.thread_id = e.thread_id)`,
  ],
];

/**
 * Prunes the PostgreSQL database in one transaction. Checkpoints are `PostgresSaver`'s JSONB
 * rows; their channel values sit in `checkpoint_blobs`, keyed by the versions each lists.
 */
export async function prunePostgres(pool: pg.Pool, before: number): Promise<PruneReport> {
  const report = emptyPruneReport();
  const cutoff = new Date(before).toISOString();
  return inTransaction(pool, async (client) => {
    const latest = await client.query<Record<string, unknown>>(LATEST_CHECKPOINTS);
    const old = oldThreads(latest.rows, cutoff);
    if (old.length > 0) {
      for (const [counted, sql] of THREAD_TABLES) {
        const removed = (await client.query(sql, [old])).rowCount ?? 0;
        if (counted) report[counted] += removed;
      }
    }
    // A run's stored limits go with its records; daily usage before the cut-off's day is no quota's any more.
    await client.query(`DELETE FROM opspilot_run_limits WHERE run_id IN (${ENDED_RUNS})`, [before]);
    await client.query("DELETE FROM opspilot_usage WHERE day < $1", [utcDay(before)]);
    for (const [counted, sql] of KEPT_THREADS) {
      const params: unknown[] = !sql.includes("$1") ? [] : counted === "checkpoints" ? [cutoff] : [before];
      report[counted] += (await client.query(sql, params)).rowCount ?? 0;
    }
    for (const [counted, sql] of incidentPruneStatements("$1")) {
      const removed = (await client.query(sql, [before])).rowCount ?? 0;
      if (counted) report[counted] += removed;
    }
    return report;
  });
}

/**
 * What compacting a thread (`$1`) removes (see `Pruner.compactThread`), in one statement: all
 * its parts see the thread as it was. Each namespace keeps its checkpoints from its rebuild base
 * on (the latest, unless a delta channel is rebuilt from older writes), their writes and the
 * blobs they refer to.
 */
const COMPACT_THREAD = `WITH base AS MATERIALIZED (
    SELECT n.checkpoint_ns, ${postgresRebuildBase("n")} AS checkpoint_id
    FROM (SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints WHERE thread_id = $1) n),
  kept AS (
    SELECT k.checkpoint_ns, k.checkpoint_id, k.checkpoint FROM checkpoints k JOIN base ON base.checkpoint_ns = k.checkpoint_ns
    WHERE k.thread_id = $1 AND (base.checkpoint_id IS NULL OR k.checkpoint_id >= base.checkpoint_id)),
  checkpoints_removed AS (
    DELETE FROM checkpoints c WHERE c.thread_id = $1 AND c.checkpoint_id < (SELECT b.checkpoint_id FROM base b
      WHERE b.checkpoint_ns = c.checkpoint_ns) RETURNING 1),
  writes_removed AS (
    DELETE FROM checkpoint_writes w WHERE w.thread_id = $1 AND NOT EXISTS (SELECT 1 FROM kept k
      WHERE k.checkpoint_ns = w.checkpoint_ns AND k.checkpoint_id = w.checkpoint_id) RETURNING 1),
  blobs_removed AS (
    DELETE FROM checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (SELECT 1 FROM kept k,
      jsonb_each_text(k.checkpoint -> 'channel_versions') v WHERE k.checkpoint_ns = b.checkpoint_ns
      AND v.key = b.channel AND v.value = b.version) RETURNING 1)
SELECT (SELECT count(*) FROM checkpoints_removed)::int AS checkpoints,
  (SELECT count(*) FROM writes_removed)::int AS writes, (SELECT count(*) FROM blobs_removed)::int AS blobs`;

/** Compacts one thread of `PostgresSaver`'s tables (see `Pruner.compactThread`): one statement, so a run's end waits for one round trip. */
export async function compactPostgresThread(pool: pg.Pool, threadId: string): Promise<CompactReport> {
  const { rows } = await pool.query<CompactReport>(COMPACT_THREAD, [threadId]);
  return rows[0]!;
}
