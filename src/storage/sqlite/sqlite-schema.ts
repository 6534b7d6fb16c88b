import type { Database } from "better-sqlite3";
import { JOB_CLAIMS_TABLE } from "../jobs/schema.js";
import { HANDOFFS_TABLE } from "../handoffs/handoff-store.js";
import { SLACK_THREADS_TABLE } from "../slack/schema.js";
import { SQLITE_INCIDENT_LOG_TABLES } from "../timeline/schema.js";

/** Incidents: an alert group has one per episode (firing until resolved), so (source, group_key) repeats. */
const INCIDENTS_TABLE = `CREATE TABLE IF NOT EXISTS opspilot_incidents (
  incident_id TEXT PRIMARY KEY, source TEXT NOT NULL, group_key TEXT NOT NULL, thread_id TEXT NOT NULL,
  status TEXT NOT NULL, alertname TEXT NOT NULL, severity TEXT, labels TEXT NOT NULL, starts_at TEXT NOT NULL,
  resolved_at INTEGER, fingerprints TEXT NOT NULL, created_at INTEGER NOT NULL);`;

/**
 * Tables opspilot keeps in the same SQLite file as the checkpoints. The two small-rowed tables
 * each step writes, read by their key alone, are WITHOUT ROWID (in files created since): a row
 * is then stored once, in its key's b-tree, so each commit writes one page for it, not two. Rows
 * of more than a few hundred bytes (results, events, the journal's observations) would spill
 * into overflow pages there, so those tables keep their rowid, as do the tool calls and the
 * decisions, which it orders. A file created before keeps its tables as they are.
 */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS opspilot_threads (
  thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_at INTEGER NOT NULL, title TEXT);
CREATE INDEX IF NOT EXISTS opspilot_threads_user ON opspilot_threads (user_id);
CREATE TABLE IF NOT EXISTS opspilot_journal (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, args_hash TEXT NOT NULL,
  state TEXT NOT NULL, observation TEXT, started_at INTEGER NOT NULL, finished_at INTEGER,
  PRIMARY KEY (thread_id, call_id));
CREATE TABLE IF NOT EXISTS opspilot_results (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, raw TEXT NOT NULL,
  created_at INTEGER NOT NULL, PRIMARY KEY (thread_id, call_id));
CREATE TABLE IF NOT EXISTS opspilot_events (
  thread_id TEXT NOT NULL, seq INTEGER NOT NULL, run_id TEXT NOT NULL, type TEXT NOT NULL,
  body TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (thread_id, seq));
CREATE TABLE IF NOT EXISTS opspilot_runs (
  run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, user_id TEXT NOT NULL, started_at INTEGER NOT NULL,
  finished_at INTEGER, stop_reason TEXT, steps INTEGER, duration_ms INTEGER, resumed INTEGER NOT NULL DEFAULT 0,
  pauses INTEGER NOT NULL DEFAULT 0, tokens INTEGER, cost_usd REAL, tool_cost_units REAL, model_error TEXT);
CREATE INDEX IF NOT EXISTS opspilot_runs_thread ON opspilot_runs (thread_id);
CREATE INDEX IF NOT EXISTS opspilot_runs_started ON opspilot_runs (started_at);
CREATE TABLE IF NOT EXISTS opspilot_steps (
  run_id TEXT NOT NULL, step INTEGER NOT NULL, latency_ms INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, tool_calls INTEGER NOT NULL, cost_usd REAL, PRIMARY KEY (run_id, step))
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS opspilot_tool_calls (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, run_id TEXT NOT NULL, tool TEXT NOT NULL,
  args_digest TEXT NOT NULL, outcome TEXT NOT NULL, error_code TEXT, duration_ms INTEGER NOT NULL,
  args_summary TEXT, PRIMARY KEY (thread_id, call_id));
CREATE TABLE IF NOT EXISTS opspilot_decisions (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, interrupt_id TEXT NOT NULL, action TEXT NOT NULL,
  args_hash_before TEXT NOT NULL, args_hash_after TEXT, message TEXT, decided_at INTEGER NOT NULL,
  user_id TEXT, role TEXT, approvals TEXT, PRIMARY KEY (thread_id, call_id));
CREATE TABLE IF NOT EXISTS opspilot_run_limits (
  run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, limits TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS opspilot_usage (
  user_id TEXT NOT NULL, day TEXT NOT NULL, runs INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0, PRIMARY KEY (user_id, day))
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS opspilot_leases (
  thread_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, owner TEXT NOT NULL, expires_at INTEGER NOT NULL,
  cancel_requested INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS opspilot_queued_messages (
  seq INTEGER PRIMARY KEY, message_id TEXT NOT NULL UNIQUE, thread_id TEXT NOT NULL, strategy TEXT NOT NULL,
  message TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, options TEXT, created_at INTEGER NOT NULL,
  status TEXT NOT NULL, error_code TEXT, error_message TEXT, finished_at INTEGER);
CREATE INDEX IF NOT EXISTS opspilot_queued_messages_thread ON opspilot_queued_messages (thread_id, status);
${INCIDENTS_TABLE}
CREATE TABLE IF NOT EXISTS opspilot_incident_messages (
  incident_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL,
  created_at INTEGER NOT NULL, delivered_at INTEGER, PRIMARY KEY (incident_id, seq));
CREATE TABLE IF NOT EXISTS opspilot_webhook_deliveries (
  source TEXT NOT NULL, delivery_id TEXT NOT NULL, received_at INTEGER NOT NULL, PRIMARY KEY (source, delivery_id));
CREATE INDEX IF NOT EXISTS opspilot_webhook_deliveries_received ON opspilot_webhook_deliveries (received_at);
CREATE TABLE IF NOT EXISTS opspilot_pause_deadlines (
  thread_id TEXT PRIMARY KEY, interrupt_id TEXT NOT NULL, expires_at INTEGER NOT NULL, user_id TEXT NOT NULL,
  role TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS opspilot_pause_deadlines_due ON opspilot_pause_deadlines (expires_at);
${JOB_CLAIMS_TABLE}
${HANDOFFS_TABLE}
${SLACK_THREADS_TABLE}
${SQLITE_INCIDENT_LOG_TABLES}
`;

/** Columns added after their table first shipped, in the order they were added (new tables declare them last). */
const ADDED_COLUMNS: ReadonlyArray<{ table: string; column: string; type: string }> = [
  { table: "opspilot_decisions", column: "user_id", type: "TEXT" },
  { table: "opspilot_decisions", column: "role", type: "TEXT" },
  { table: "opspilot_runs", column: "pauses", type: "INTEGER NOT NULL DEFAULT 0" },
  { table: "opspilot_tool_calls", column: "args_summary", type: "TEXT" },
  { table: "opspilot_runs", column: "tokens", type: "INTEGER" },
  { table: "opspilot_runs", column: "cost_usd", type: "REAL" },
  { table: "opspilot_runs", column: "tool_cost_units", type: "REAL" },
  { table: "opspilot_steps", column: "cost_usd", type: "REAL" },
  { table: "opspilot_threads", column: "title", type: "TEXT" },
  { table: "opspilot_decisions", column: "approvals", type: "TEXT" },
  { table: "opspilot_runs", column: "model_error", type: "TEXT" },
  { table: "opspilot_incidents", column: "silenced_at", type: "INTEGER" },
  { table: "opspilot_incidents", column: "silence_ids", type: "TEXT" },
  { table: "opspilot_incidents", column: "resolution", type: "TEXT" },
];

/**
 * Gives a database created by an earlier version the columns added since, so it keeps
 * working; rows written before keep NULL there. One write transaction, so two processes
 * opening the same file at once do not both add a column.
 */
export function addMissingColumns(db: Database): void {
  migrateIncidents(db);
  db.transaction(() => {
    for (const { table, column, type } of ADDED_COLUMNS) {
      const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
      if (!columns.some((existing) => existing.name === column))
        db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
    }
  }).immediate();
}

/**
 * Lets an alert group have one incident per episode. A file made when (source, group_key) was
 * unique gets its incidents table rebuilt without that key, rows kept, in one write transaction;
 * then the group's lookup index is made.
 */
function migrateIncidents(db: Database): void {
  db.transaction(() => {
    const table = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'opspilot_incidents'")
      .get() as { sql: string } | undefined;
    if (table?.sql.includes("UNIQUE (source, group_key)")) {
      db.exec(`ALTER TABLE opspilot_incidents RENAME TO opspilot_incidents_before;
        ${INCIDENTS_TABLE}
        INSERT INTO opspilot_incidents SELECT * FROM opspilot_incidents_before;
        DROP TABLE opspilot_incidents_before;`);
    }
    db.exec(
      "CREATE INDEX IF NOT EXISTS opspilot_incidents_group ON opspilot_incidents (source, group_key, created_at)",
    );
  }).immediate();
}
