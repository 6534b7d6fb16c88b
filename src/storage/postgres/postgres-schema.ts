import type pg from "pg";
import { JOB_CLAIMS_TABLE } from "../jobs/schema.js";
import { HANDOFFS_TABLE } from "../handoffs/handoff-store.js";
import { SLACK_THREADS_TABLE } from "../slack/schema.js";
import { POSTGRES_INCIDENT_LOG_TABLES } from "../timeline/schema.js";

/**
 * Tables opspilot keeps in the same PostgreSQL database as LangGraph's checkpoints: the
 * SQLite tables of `sqlite-schema.ts`, with BIGINT millisecond times, `seq` columns standing
 * in for SQLite's rowid order, and a per-thread counter that hands out event sequence numbers.
 * Columns added after a table first shipped are added to databases created before (`ADD COLUMN IF NOT EXISTS`).
 */
const POSTGRES_SCHEMA = `
CREATE TABLE IF NOT EXISTS opspilot_threads (
  thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_at BIGINT NOT NULL, title TEXT);
ALTER TABLE opspilot_threads ADD COLUMN IF NOT EXISTS title TEXT;
CREATE INDEX IF NOT EXISTS opspilot_threads_user ON opspilot_threads (user_id);
CREATE TABLE IF NOT EXISTS opspilot_journal (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, args_hash TEXT NOT NULL,
  state TEXT NOT NULL, observation TEXT, started_at BIGINT NOT NULL, finished_at BIGINT,
  PRIMARY KEY (thread_id, call_id));
CREATE TABLE IF NOT EXISTS opspilot_results (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, raw TEXT NOT NULL,
  created_at BIGINT NOT NULL, PRIMARY KEY (thread_id, call_id));
CREATE TABLE IF NOT EXISTS opspilot_event_seqs (
  thread_id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS opspilot_events (
  thread_id TEXT NOT NULL, seq INTEGER NOT NULL, run_id TEXT NOT NULL, type TEXT NOT NULL,
  body TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (thread_id, seq));
CREATE TABLE IF NOT EXISTS opspilot_runs (
  run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, user_id TEXT NOT NULL, started_at BIGINT NOT NULL,
  finished_at BIGINT, stop_reason TEXT, steps INTEGER, duration_ms BIGINT, resumed INTEGER NOT NULL DEFAULT 0,
  pauses INTEGER NOT NULL DEFAULT 0, tokens BIGINT, cost_usd DOUBLE PRECISION, tool_cost_units DOUBLE PRECISION,
  model_error TEXT);
CREATE INDEX IF NOT EXISTS opspilot_runs_thread ON opspilot_runs (thread_id);
ALTER TABLE opspilot_runs ADD COLUMN IF NOT EXISTS tokens BIGINT;
ALTER TABLE opspilot_runs ADD COLUMN IF NOT EXISTS cost_usd DOUBLE PRECISION;
ALTER TABLE opspilot_runs ADD COLUMN IF NOT EXISTS tool_cost_units DOUBLE PRECISION;
ALTER TABLE opspilot_runs ADD COLUMN IF NOT EXISTS pauses INTEGER NOT NULL DEFAULT 0;
ALTER TABLE opspilot_runs ADD COLUMN IF NOT EXISTS model_error TEXT;
CREATE INDEX IF NOT EXISTS opspilot_runs_started ON opspilot_runs (started_at);
CREATE TABLE IF NOT EXISTS opspilot_steps (
  run_id TEXT NOT NULL, step INTEGER NOT NULL, latency_ms BIGINT NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, tool_calls INTEGER NOT NULL, cost_usd DOUBLE PRECISION, PRIMARY KEY (run_id, step));
ALTER TABLE opspilot_steps ADD COLUMN IF NOT EXISTS cost_usd DOUBLE PRECISION;
CREATE TABLE IF NOT EXISTS opspilot_run_limits (
  run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, limits TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS opspilot_usage (
  user_id TEXT NOT NULL, day TEXT NOT NULL, runs INTEGER NOT NULL DEFAULT 0, tokens BIGINT NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0, PRIMARY KEY (user_id, day));
CREATE TABLE IF NOT EXISTS opspilot_tool_calls (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, run_id TEXT NOT NULL, tool TEXT NOT NULL,
  args_digest TEXT NOT NULL, outcome TEXT NOT NULL, error_code TEXT, duration_ms BIGINT NOT NULL,
  seq BIGSERIAL NOT NULL, args_summary TEXT, PRIMARY KEY (thread_id, call_id));
ALTER TABLE opspilot_tool_calls ADD COLUMN IF NOT EXISTS args_summary TEXT;
CREATE TABLE IF NOT EXISTS opspilot_decisions (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, interrupt_id TEXT NOT NULL, action TEXT NOT NULL,
  args_hash_before TEXT NOT NULL, args_hash_after TEXT, message TEXT, decided_at BIGINT NOT NULL,
  seq BIGSERIAL NOT NULL, user_id TEXT, role TEXT, approvals TEXT, PRIMARY KEY (thread_id, call_id));
ALTER TABLE opspilot_decisions ADD COLUMN IF NOT EXISTS user_id TEXT;
ALTER TABLE opspilot_decisions ADD COLUMN IF NOT EXISTS role TEXT;
ALTER TABLE opspilot_decisions ADD COLUMN IF NOT EXISTS approvals TEXT;
CREATE TABLE IF NOT EXISTS opspilot_leases (
  thread_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, owner TEXT NOT NULL, expires_at BIGINT NOT NULL,
  cancel_requested BOOLEAN NOT NULL DEFAULT false);
CREATE TABLE IF NOT EXISTS opspilot_queued_messages (
  seq BIGSERIAL PRIMARY KEY, message_id TEXT NOT NULL UNIQUE, thread_id TEXT NOT NULL, strategy TEXT NOT NULL,
  message TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, options TEXT, created_at BIGINT NOT NULL,
  status TEXT NOT NULL, error_code TEXT, error_message TEXT, finished_at BIGINT);
CREATE INDEX IF NOT EXISTS opspilot_queued_messages_thread ON opspilot_queued_messages (thread_id, status);
CREATE TABLE IF NOT EXISTS opspilot_incidents (
  incident_id TEXT PRIMARY KEY, source TEXT NOT NULL, group_key TEXT NOT NULL, thread_id TEXT NOT NULL,
  status TEXT NOT NULL, alertname TEXT NOT NULL, severity TEXT, labels TEXT NOT NULL, starts_at TEXT NOT NULL,
  resolved_at BIGINT, fingerprints TEXT NOT NULL, created_at BIGINT NOT NULL);
-- A group has one incident per episode (firing until resolved): tables made when it was unique lose the key.
ALTER TABLE opspilot_incidents DROP CONSTRAINT IF EXISTS opspilot_incidents_source_group_key_key;
CREATE INDEX IF NOT EXISTS opspilot_incidents_group ON opspilot_incidents (source, group_key, created_at);
ALTER TABLE opspilot_incidents ADD COLUMN IF NOT EXISTS silenced_at BIGINT;
ALTER TABLE opspilot_incidents ADD COLUMN IF NOT EXISTS silence_ids TEXT;
ALTER TABLE opspilot_incidents ADD COLUMN IF NOT EXISTS resolution TEXT;
CREATE TABLE IF NOT EXISTS opspilot_incident_messages (
  incident_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL,
  created_at BIGINT NOT NULL, delivered_at BIGINT, PRIMARY KEY (incident_id, seq));
CREATE TABLE IF NOT EXISTS opspilot_webhook_deliveries (
  source TEXT NOT NULL, delivery_id TEXT NOT NULL, received_at BIGINT NOT NULL, PRIMARY KEY (source, delivery_id));
CREATE INDEX IF NOT EXISTS opspilot_webhook_deliveries_received ON opspilot_webhook_deliveries (received_at);
CREATE TABLE IF NOT EXISTS opspilot_pause_deadlines (
  thread_id TEXT PRIMARY KEY, interrupt_id TEXT NOT NULL, expires_at BIGINT NOT NULL, user_id TEXT NOT NULL,
  role TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS opspilot_pause_deadlines_due ON opspilot_pause_deadlines (expires_at);
${JOB_CLAIMS_TABLE}
${HANDOFFS_TABLE}
${SLACK_THREADS_TABLE}
${POSTGRES_INCIDENT_LOG_TABLES}
`;

/** Key of the advisory lock that serialises schema set-up across processes starting together. */
const SETUP_LOCK_KEY = 0x6f70_7370;

/**
 * Runs `setup` while holding a session advisory lock, so processes that start at the same
 * time do not race on `CREATE TABLE IF NOT EXISTS` or on the checkpointer's migrations.
 */
export async function withSetupLock<T>(pool: pg.Pool, setup: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [SETUP_LOCK_KEY]);
    return await setup();
  } finally {
    // Ending the session frees the lock, even when set-up failed halfway.
    client.release(true);
  }
}

/** Creates opspilot's tables when they are missing (call inside `withSetupLock`). */
export async function preparePostgresSchema(pool: pg.Pool): Promise<void> {
  await pool.query(POSTGRES_SCHEMA);
}

/** Runs `work` on one client in one transaction: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
