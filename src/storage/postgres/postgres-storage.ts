import { postgresJobClaims } from "../jobs/postgres-job-claims.js";
import type { JobClaimStore } from "../jobs/types.js";
import { postgresSlackThreads } from "../slack/postgres-slack-threads.js";
import type { SlackThreadStore } from "../slack/types.js";
import { SUMMARY_SQL, summarize, type SummaryWindow } from "../records/summary.js";
import {
  DECISION_COLUMNS,
  numberedPlaceholders,
  readRecordsPage,
  TOOL_CALL_COLUMNS,
  toolCallValues,
  type RecordsPage,
  type RecordsQuery,
} from "../records/records-page.js";
import { compactPostgresThread, prunePostgres } from "../retention/postgres-prune.js";
import type { CompactReport, PruneReport } from "../retention/prune.js";
import type {
  DailyUsage,
  IncidentStore,
  MessageQueueStore,
  PauseDeadlineStore,
  RecordsSummary,
  Recorder,
  Storage,
  ToolCallRecord,
} from "../types.js";
import { postgresPauseDeadlines } from "../approvals/postgres-pause-deadlines.js";
import { postgresHandoffs } from "../handoffs/postgres-handoffs.js";
import type { HandoffStore } from "../handoffs/handoff-store.js";
import { postgresIncidents } from "../incidents/postgres-incidents.js";
import { postgresIncidentLog } from "../timeline/postgres-incident-log.js";
import type { IncidentLogStore } from "../timeline/incident-log-store.js";
import { postgresMessageQueue } from "../queue/postgres-message-queue.js";
import { utcDay } from "../records/usage-day.js";
import { decisionValues } from "../approvals/decision-row.js";
import { PostgresThreadStore } from "./postgres-thread-store.js";

/**
 * Storage on a pg pool to the checkpoints' PostgreSQL database, with the semantics of
 * `SqliteStorage`, safe when several processes share the database. Each record is committed
 * by a statement of its own, with bound parameters, before its call returns. The schema must
 * exist (`openPostgres` prepares it).
 */
export class PostgresStorage extends PostgresThreadStore implements Storage {
  async saveResult(threadId: string, callId: string, tool: string, raw: unknown, json?: string): Promise<void> {
    await this.changes(
      "INSERT INTO opspilot_results VALUES ($1, $2, $3, $4, $5) ON CONFLICT (thread_id, call_id) DO UPDATE SET tool = EXCLUDED.tool, raw = EXCLUDED.raw, created_at = EXCLUDED.created_at",
      [threadId, callId, tool, json ?? JSON.stringify(raw ?? null), Date.now()],
    );
  }

  async getResult(threadId: string, callId: string): Promise<{ tool: string; raw: unknown } | undefined> {
    const [row] = await this.rows("SELECT tool, raw FROM opspilot_results WHERE thread_id = $1 AND call_id = $2", [
      threadId,
      callId,
    ]);
    return row ? { tool: row.tool as string, raw: JSON.parse(row.raw as string) } : undefined;
  }

  async recordRunStart(run: Parameters<Recorder["recordRunStart"]>[0]): Promise<void> {
    // One statement, so a recovered run that records its start again counts once against the quota.
    await this.changes(
      `WITH inserted AS (
         INSERT INTO opspilot_runs (run_id, thread_id, user_id, started_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (run_id) DO NOTHING RETURNING user_id)
       INSERT INTO opspilot_usage (user_id, day, runs) SELECT user_id, $5, 1 FROM inserted
       ON CONFLICT (user_id, day) DO UPDATE SET runs = opspilot_usage.runs + 1`,
      [run.runId, run.threadId, run.userId, run.startedAt, utcDay(run.startedAt)],
    );
  }

  async saveRunLimits(threadId: string, runId: string, limits: Record<string, unknown>): Promise<void> {
    await this.changes(
      `INSERT INTO opspilot_run_limits VALUES ($1, $2, $3, $4)
       ON CONFLICT (run_id) DO UPDATE SET limits = EXCLUDED.limits, created_at = EXCLUDED.created_at`,
      [runId, threadId, JSON.stringify(limits), Date.now()],
    );
  }

  async runLimits(runId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.rows("SELECT limits FROM opspilot_run_limits WHERE run_id = $1", [runId]);
    return row ? (JSON.parse(row.limits as string) as Record<string, unknown>) : undefined;
  }

  async usageOn(userId: string, day: string): Promise<DailyUsage> {
    const [row] = await this.rows("SELECT runs, tokens, cost_usd FROM opspilot_usage WHERE user_id = $1 AND day = $2", [
      userId,
      day,
    ]);
    return {
      runs: Number(row?.runs ?? 0),
      tokens: Number(row?.tokens ?? 0),
      costUsd: Number(row?.cost_usd ?? 0),
    };
  }

  async recordStep(step: Parameters<Recorder["recordStep"]>[0]): Promise<void> {
    await this.changes(
      // A step re-run after a crash called the model again, so its spending counts again.
      `WITH recorded AS (
         INSERT INTO opspilot_steps (run_id, step, latency_ms, input_tokens, output_tokens, tool_calls, cost_usd)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (run_id, step) DO UPDATE SET
         latency_ms = EXCLUDED.latency_ms, input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
         tool_calls = EXCLUDED.tool_calls, cost_usd = EXCLUDED.cost_usd)
       INSERT INTO opspilot_usage (user_id, day, tokens, cost_usd) SELECT user_id, $8, $9, $7 FROM opspilot_runs WHERE run_id = $1
       ON CONFLICT (user_id, day) DO UPDATE SET
         tokens = opspilot_usage.tokens + EXCLUDED.tokens, cost_usd = opspilot_usage.cost_usd + EXCLUDED.cost_usd`,
      [
        step.runId,
        step.step,
        Math.round(step.latencyMs),
        step.inputTokens,
        step.outputTokens,
        step.toolCalls,
        step.costUsd,
        utcDay(Date.now()),
        step.inputTokens + step.outputTokens,
      ],
    );
  }

  async recordToolCalls(calls: readonly ToolCallRecord[]): Promise<void> {
    if (calls.length === 0) return;
    // One statement cannot update a row twice: a call listed twice keeps its last record, in its last place.
    const last = [...new Map(calls.map((call) => [`${call.threadId}\u0000${call.callId}`, call])).values()];
    const ordered = calls.filter((call) => last.includes(call));
    const values: unknown[] = [];
    // The column is an integer here; SQLite keeps what it is given.
    const rows = ordered.map(
      (call) =>
        `(${toolCallValues({ ...call, durationMs: Math.round(call.durationMs) })
          .map((value) => `$${values.push(value)}`)
          .join(", ")})`,
    );
    // Rows get their `seq` in the order listed; `seq = DEFAULT` moves a replaced row to the end, like
    // SQLite's INSERT OR REPLACE does with rowid.
    await this.changes(
      `INSERT INTO opspilot_tool_calls (${TOOL_CALL_COLUMNS}) VALUES ${rows.join(", ")} ON CONFLICT (thread_id, call_id) DO UPDATE SET
         run_id = EXCLUDED.run_id, tool = EXCLUDED.tool, args_digest = EXCLUDED.args_digest, outcome = EXCLUDED.outcome,
         error_code = EXCLUDED.error_code, duration_ms = EXCLUDED.duration_ms, args_summary = EXCLUDED.args_summary,
         seq = DEFAULT`,
      values,
    );
  }

  async recordDecision(decision: Parameters<Recorder["recordDecision"]>[0]): Promise<void> {
    await this.changes(
      `INSERT INTO opspilot_decisions (${DECISION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (thread_id, call_id) DO UPDATE SET
         interrupt_id = EXCLUDED.interrupt_id, action = EXCLUDED.action, args_hash_before = EXCLUDED.args_hash_before,
         args_hash_after = EXCLUDED.args_hash_after, message = EXCLUDED.message, decided_at = EXCLUDED.decided_at,
         user_id = EXCLUDED.user_id, role = EXCLUDED.role, approvals = EXCLUDED.approvals, seq = DEFAULT`,
      decisionValues(decision, Date.now()),
    );
  }

  async recordRunEnd(run: Parameters<Recorder["recordRunEnd"]>[0]): Promise<void> {
    await this.changes(
      "UPDATE opspilot_runs SET finished_at = $1, stop_reason = $2, steps = $3, duration_ms = $4, resumed = GREATEST(resumed, $5), pauses = pauses + $6, tokens = COALESCE($8, tokens), cost_usd = COALESCE($9, cost_usd), tool_cost_units = COALESCE($10, tool_cost_units), model_error = COALESCE($11, model_error) WHERE run_id = $7",
      [
        Date.now(),
        run.stopReason,
        run.steps,
        Math.round(run.durationMs),
        run.resumed ? 1 : 0,
        run.stopReason === "interrupted" ? 1 : 0,
        run.runId,
        run.tokens ?? null,
        run.costUsd ?? null,
        run.toolCostUnits ?? null,
        run.modelError ? JSON.stringify(run.modelError) : null,
      ],
    );
  }

  async threadRecords(threadId: string) {
    const runs = await this.rows("SELECT * FROM opspilot_runs WHERE thread_id = $1 ORDER BY started_at", [threadId]);
    const toolCalls = await this.rows(
      `SELECT ${TOOL_CALL_COLUMNS} FROM opspilot_tool_calls WHERE thread_id = $1 ORDER BY seq`,
      [threadId],
    );
    const steps = await this.rows(
      "SELECT s.* FROM opspilot_steps s JOIN opspilot_runs r ON r.run_id = s.run_id WHERE r.thread_id = $1 ORDER BY r.started_at, s.step",
      [threadId],
    );
    const decisions = await this.rows(
      `SELECT ${DECISION_COLUMNS} FROM opspilot_decisions WHERE thread_id = $1 ORDER BY decided_at, seq`,
      [threadId],
    );
    return { runs, toolCalls, steps, decisions };
  }

  async prune(before: number): Promise<PruneReport> {
    return prunePostgres(this.pool, before);
  }

  async compactThread(threadId: string): Promise<CompactReport> {
    return compactPostgresThread(this.pool, threadId);
  }

  async recordsPage(query: RecordsQuery): Promise<RecordsPage> {
    return readRecordsPage(
      { read: (sql, params) => this.rows(numberedPlaceholders(sql), params), insertionOrder: "seq" },
      query,
    );
  }

  async summary(window: SummaryWindow): Promise<RecordsSummary> {
    const params = [window.since, window.until];
    return summarize(window, {
      runs: await this.rows(numberedPlaceholders(SUMMARY_SQL.runs), params),
      steps: await this.rows(numberedPlaceholders(SUMMARY_SQL.steps), params),
      calls: await this.rows(numberedPlaceholders(SUMMARY_SQL.calls), params),
      waiting: await this.rows(SUMMARY_SQL.waiting),
    });
  }

  /** Incidents and their waiting messages, on the same connection. */
  readonly incidents: IncidentStore = postgresIncidents(this.pool);

  /** Messages waiting for busy threads, on the same pool. */
  readonly messageQueue: MessageQueueStore = postgresMessageQueue(this.pool);

  /** When waiting pauses expire, on the same connection. */
  readonly pauseDeadlines: PauseDeadlineStore = postgresPauseDeadlines(this.pool);

  /** Which process runs each background job's due time, shared by every process on the database. */
  readonly jobClaims: JobClaimStore = postgresJobClaims(this.pool);

  /** Runs handed over at shutdown, shared by every process on the database. */
  readonly handoffs: HandoffStore = postgresHandoffs(this.pool);
  /** Each incident's Slack message, shared by every process on the database. */
  readonly slackThreads: SlackThreadStore = postgresSlackThreads(this.pool);
  /** Incidents' alert deliveries and notices, their threads' timed events and postmortem drafts. */
  readonly incidentLog: IncidentLogStore = postgresIncidentLog(this.pool);

  async close(): Promise<void> {
    // Nothing is held back, and the pool is shared with the checkpointer: its owner (`openPostgres`) ends it.
  }
}
