import type { Database } from "better-sqlite3";
import { emptyPruneReport, INTERRUPT_CHANNEL, oldThreads, type CompactReport, type PruneReport } from "./prune.js";
import { utcDay } from "../records/usage-day.js";
import { sqliteRebuildBase } from "../checkpoints/delta-base.js";
import { incidentPruneStatements, THREAD_COORDINATION_TABLES } from "./incident-prune.js";

type Row = Record<string, unknown>;

/** The latest checkpoint of each thread and namespace: when it was taken and whether a pause waits in it. */
const LATEST_CHECKPOINTS = `
SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id,
  json_extract(CAST(c.checkpoint AS TEXT), '$.ts') AS ts,
  EXISTS (SELECT 1 FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns
    AND w.checkpoint_id = c.checkpoint_id AND w.channel = '${INTERRUPT_CHANNEL}') AS paused
FROM checkpoints c
WHERE c.checkpoint_id = (SELECT MAX(m.checkpoint_id) FROM checkpoints m
  WHERE m.thread_id = c.thread_id AND m.checkpoint_ns = c.checkpoint_ns)`;

/** Everything one thread owns, in the order that leaves no row pointing at a removed one, and where each is counted. */
const THREAD_TABLES: ReadonlyArray<[keyof PruneReport | undefined, string]> = [
  ["decisions", "DELETE FROM opspilot_decisions WHERE thread_id = ?"],
  ["steps", "DELETE FROM opspilot_steps WHERE run_id IN (SELECT run_id FROM opspilot_runs WHERE thread_id = ?)"],
  ["toolCalls", "DELETE FROM opspilot_tool_calls WHERE thread_id = ?"],
  [undefined, "DELETE FROM opspilot_run_limits WHERE thread_id = ?"],
  ["runs", "DELETE FROM opspilot_runs WHERE thread_id = ?"],
  ["events", "DELETE FROM opspilot_events WHERE thread_id = ?"],
  ["results", "DELETE FROM opspilot_results WHERE thread_id = ?"],
  [undefined, "DELETE FROM opspilot_journal WHERE thread_id = ?"],
  ["writes", "DELETE FROM writes WHERE thread_id = ?"],
  ["checkpoints", "DELETE FROM checkpoints WHERE thread_id = ?"],
  ["threads", "DELETE FROM opspilot_threads WHERE thread_id = ?"],
  ...THREAD_COORDINATION_TABLES.map((table): [undefined, string] => [
    undefined,
    `DELETE FROM ${table} WHERE thread_id = ?`,
  ]),
];

/**
 * Prunes the SQLite file in one write transaction (other processes wait on the busy timeout).
 * Checkpoints are `SqliteSaver`'s JSON rows, each holding its channel values.
 */
export function pruneSqlite(db: Database, before: number): PruneReport {
  const report = emptyPruneReport();
  const cutoff = new Date(before).toISOString();
  const hasCheckpoints = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'").get();
  const run = (sql: string, ...params: unknown[]) => db.prepare(sql).run(...params).changes;
  db.transaction(() => {
    if (hasCheckpoints) {
      for (const threadId of oldThreads(db.prepare(LATEST_CHECKPOINTS).all() as Row[], cutoff)) {
        for (const [counted, sql] of THREAD_TABLES) {
          const removed = run(sql, threadId);
          if (counted) report[counted] += removed;
        }
      }
      // Never a thread's latest (it holds its current state and any waiting pause), nor one that a
      // kept checkpoint is rebuilt from: only those older than the newest base before the cut-off.
      // Each thread's base is found once (materialized), not again for every checkpoint it compares.
      report.checkpoints += run(
        `WITH bases AS MATERIALIZED (SELECT t.thread_id, t.checkpoint_ns,
             ${sqliteRebuildBase("t", " AND json_extract(CAST(c.checkpoint AS TEXT), '$.ts') < :cutoff")} AS base
           FROM (SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints) t)
         DELETE FROM checkpoints WHERE type = 'json' AND json_extract(CAST(checkpoint AS TEXT), '$.ts') < :cutoff
           AND checkpoint_id < (SELECT MAX(m.checkpoint_id) FROM checkpoints m
             WHERE m.thread_id = checkpoints.thread_id AND m.checkpoint_ns = checkpoints.checkpoint_ns)
           AND checkpoint_id < (SELECT b.base FROM bases b
             WHERE b.thread_id = checkpoints.thread_id AND b.checkpoint_ns = checkpoints.checkpoint_ns)`,
        { cutoff },
      );
      report.writes += run(
        `DELETE FROM writes WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = writes.thread_id
           AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)`,
      );
      for (const [counted, sql] of incidentPruneStatements("?")) {
        const removed = run(sql, before);
        if (counted) report[counted] += removed;
      }
    }
    pruneRecords(run, before, report);
  }).immediate();
  return report;
}

/**
 * Records of runs that ended before the cut-off, raw results and events older than it. A run
 * still waiting (or still going) keeps its records; each thread keeps its last event, whose
 * number the next event continues from.
 */
function pruneRecords(run: (sql: string, ...params: unknown[]) => number, before: number, report: PruneReport) {
  const ended = `SELECT run_id FROM opspilot_runs WHERE finished_at < ? AND stop_reason IS NOT NULL
    AND stop_reason <> 'interrupted'`;
  report.decisions += run(
    `DELETE FROM opspilot_decisions WHERE EXISTS (SELECT 1 FROM opspilot_tool_calls c
       WHERE c.thread_id = opspilot_decisions.thread_id AND c.call_id = opspilot_decisions.call_id
       AND c.run_id IN (${ended}))`,
    before,
  );
  report.steps += run(`DELETE FROM opspilot_steps WHERE run_id IN (${ended})`, before);
  report.toolCalls += run(`DELETE FROM opspilot_tool_calls WHERE run_id IN (${ended})`, before);
  // A run's stored limits go with its records; daily usage before the cut-off's day is no quota's any more.
  run(`DELETE FROM opspilot_run_limits WHERE run_id IN (${ended})`, before);
  run("DELETE FROM opspilot_usage WHERE day < ?", utcDay(before));
  report.runs += run(`DELETE FROM opspilot_runs WHERE run_id IN (${ended})`, before);
  report.results += run("DELETE FROM opspilot_results WHERE created_at < ?", before);
  report.events += run(
    `DELETE FROM opspilot_events WHERE created_at < ? AND seq < (SELECT MAX(e.seq) FROM opspilot_events e
       WHERE e.thread_id = opspilot_events.thread_id)`,
    before,
  );
}

/**
 * Drops a thread's checkpoints older than each namespace's rebuild base (the latest, unless a
 * delta channel's value is rebuilt from older writes), and their pending writes, in one write
 * transaction through `SqliteSaver`'s own tables (see `Pruner.compactThread`).
 */
export function compactSqliteThread(db: Database, threadId: string): CompactReport {
  const hasCheckpoints = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'").get();
  if (!hasCheckpoints) return { checkpoints: 0, writes: 0, blobs: 0 };
  const run = (sql: string) => db.prepare(sql).run({ threadId }).changes;
  return db
    .transaction(() => ({
      checkpoints: run(
        `WITH bases AS MATERIALIZED (SELECT t.checkpoint_ns, ${sqliteRebuildBase("t")} AS base
           FROM (SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints WHERE thread_id = :threadId) t)
         DELETE FROM checkpoints WHERE thread_id = :threadId
           AND checkpoint_id < (SELECT b.base FROM bases b WHERE b.checkpoint_ns = checkpoints.checkpoint_ns)`,
      ),
      writes: run(
        `DELETE FROM writes WHERE thread_id = :threadId AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = writes.thread_id
         AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)`,
      ),
      blobs: 0,
    }))
    .immediate();
}
