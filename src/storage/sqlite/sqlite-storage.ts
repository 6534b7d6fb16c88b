import { sqliteJobClaims } from "../jobs/sqlite-job-claims.js";
import { sqliteHandoffs } from "../handoffs/sqlite-handoffs.js";
import type { HandoffStore } from "../handoffs/handoff-store.js";
import type { JobClaimStore } from "../jobs/types.js";
import { sqliteSlackThreads } from "../slack/sqlite-slack-threads.js";
import type { SlackThreadStore } from "../slack/types.js";
import { SUMMARY_SQL, summarize, type SummaryWindow } from "../records/summary.js";
import {
  readRecordsPage,
  DECISION_COLUMNS,
  TOOL_CALL_COLUMNS,
  toolCallValues,
  type RecordsPage,
  type RecordsQuery,
} from "../records/records-page.js";
import { compactSqliteThread, pruneSqlite } from "../retention/sqlite-prune.js";
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
import { sqlitePauseDeadlines } from "../approvals/sqlite-pause-deadlines.js";
import { sqliteIncidents } from "../incidents/sqlite-incidents.js";
import { sqliteIncidentLog } from "../timeline/sqlite-incident-log.js";
import type { IncidentLogStore } from "../timeline/incident-log-store.js";
import { sqliteMessageQueue } from "../queue/sqlite-message-queue.js";
import { utcDay } from "../records/usage-day.js";
import { decisionValues } from "../approvals/decision-row.js";
import { SqliteThreadStore, type Row } from "./sqlite-thread-store.js";

/** Storage on a better-sqlite3 connection to the checkpoints' SQLite file; each write commits on its own. */
export class SqliteStorage extends SqliteThreadStore implements Storage {
  async recordRunStart(run: Parameters<Recorder["recordRunStart"]>[0]): Promise<void> {
    this.writeRecord(() => {
      const inserted = this.statements
        .get("INSERT OR IGNORE INTO opspilot_runs (run_id, thread_id, user_id, started_at) VALUES (?, ?, ?, ?)")
        .run(run.runId, run.threadId, run.userId, run.startedAt).changes;
      // A recovered run records its start again; it counts once against the quota.
      if (inserted === 1)
        this.statements
          .get(
            "INSERT INTO opspilot_usage (user_id, day, runs) VALUES (?, ?, 1) ON CONFLICT (user_id, day) DO UPDATE SET runs = runs + 1",
          )
          .run(run.userId, utcDay(run.startedAt));
    });
  }

  async recordStep(step: Parameters<Recorder["recordStep"]>[0]): Promise<void> {
    const day = utcDay(Date.now());
    this.writeRecord(() => {
      this.statements
        .get(
          "INSERT OR REPLACE INTO opspilot_steps (run_id, step, latency_ms, input_tokens, output_tokens, tool_calls, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .run(step.runId, step.step, step.latencyMs, step.inputTokens, step.outputTokens, step.toolCalls, step.costUsd);
      // A step re-run after a crash called the model again, so its spending counts again.
      this.statements
        .get(
          `INSERT INTO opspilot_usage (user_id, day, tokens, cost_usd) SELECT user_id, ?, ?, ? FROM opspilot_runs WHERE run_id = ?
             ON CONFLICT (user_id, day) DO UPDATE SET tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd`,
        )
        .run(day, step.inputTokens + step.outputTokens, step.costUsd, step.runId);
    });
  }

  async saveRunLimits(threadId: string, runId: string, limits: Record<string, unknown>): Promise<void> {
    this.statements
      .get("INSERT OR REPLACE INTO opspilot_run_limits VALUES (?, ?, ?, ?)")
      .run(runId, threadId, JSON.stringify(limits), Date.now());
  }

  async runLimits(runId: string): Promise<Record<string, unknown> | undefined> {
    const row = this.statements.get("SELECT limits FROM opspilot_run_limits WHERE run_id = ?").get(runId) as
      Row | undefined;
    return row ? (JSON.parse(row.limits as string) as Record<string, unknown>) : undefined;
  }

  async usageOn(userId: string, day: string): Promise<DailyUsage> {
    const row = this.statements
      .get("SELECT runs, tokens, cost_usd FROM opspilot_usage WHERE user_id = ? AND day = ?")
      .get(userId, day) as Row | undefined;
    return {
      runs: (row?.runs as number | undefined) ?? 0,
      tokens: (row?.tokens as number | undefined) ?? 0,
      costUsd: (row?.cost_usd as number | undefined) ?? 0,
    };
  }

  async recordToolCalls(calls: readonly ToolCallRecord[]): Promise<void> {
    if (calls.length === 0) return;
    const insert = this.statements.get(
      `INSERT OR REPLACE INTO opspilot_tool_calls (${TOOL_CALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.writeRecord(() => {
      for (const call of calls) insert.run(...toolCallValues(call));
    });
  }

  async recordDecision(decision: Parameters<Recorder["recordDecision"]>[0]): Promise<void> {
    this.statements
      .get(`INSERT OR REPLACE INTO opspilot_decisions (${DECISION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...decisionValues(decision, Date.now()));
  }

  async recordRunEnd(run: Parameters<Recorder["recordRunEnd"]>[0]): Promise<void> {
    const finishedAt = Date.now();
    this.writeRecord(() =>
      this.statements
        .get(
          "UPDATE opspilot_runs SET finished_at = ?, stop_reason = ?, steps = ?, duration_ms = ?, resumed = MAX(resumed, ?), pauses = pauses + ?, tokens = COALESCE(?, tokens), cost_usd = COALESCE(?, cost_usd), tool_cost_units = COALESCE(?, tool_cost_units), model_error = COALESCE(?, model_error) WHERE run_id = ?",
        )
        .run(
          finishedAt,
          run.stopReason,
          run.steps,
          run.durationMs,
          run.resumed ? 1 : 0,
          run.stopReason === "interrupted" ? 1 : 0,
          run.tokens ?? null,
          run.costUsd ?? null,
          run.toolCostUnits ?? null,
          run.modelError ? JSON.stringify(run.modelError) : null,
          run.runId,
        ),
    );
  }

  async threadRecords(threadId: string) {
    const runs = this.statements
      .get("SELECT * FROM opspilot_runs WHERE thread_id = ? ORDER BY started_at")
      .all(threadId) as Row[];
    const toolCalls = this.statements
      .get("SELECT * FROM opspilot_tool_calls WHERE thread_id = ? ORDER BY rowid")
      .all(threadId) as Row[];
    const steps = this.statements
      .get(
        "SELECT s.* FROM opspilot_steps s JOIN opspilot_runs r ON r.run_id = s.run_id WHERE r.thread_id = ? ORDER BY r.started_at, s.step",
      )
      .all(threadId) as Row[];
    const decisions = this.statements
      .get("SELECT * FROM opspilot_decisions WHERE thread_id = ? ORDER BY decided_at, rowid")
      .all(threadId) as Row[];
    return { runs, toolCalls, steps, decisions };
  }

  async prune(before: number): Promise<PruneReport> {
    return pruneSqlite(this.db, before);
  }

  async compactThread(threadId: string): Promise<CompactReport> {
    return compactSqliteThread(this.db, threadId);
  }

  async recordsPage(query: RecordsQuery): Promise<RecordsPage> {
    return readRecordsPage(
      { read: async (sql, params) => this.statements.get(sql).all(...params) as Row[], insertionOrder: "rowid" },
      query,
    );
  }

  async summary(window: SummaryWindow): Promise<RecordsSummary> {
    const read = (sql: string, ...params: number[]) => this.statements.get(sql).all(...params) as Row[];
    return summarize(window, {
      runs: read(SUMMARY_SQL.runs, window.since, window.until),
      steps: read(SUMMARY_SQL.steps, window.since, window.until),
      calls: read(SUMMARY_SQL.calls, window.since, window.until),
      waiting: read(SUMMARY_SQL.waiting),
    });
  }

  /** Incidents and their waiting messages, on the same connection. */
  readonly incidents: IncidentStore = sqliteIncidents(this.db, this.statements);

  /** Messages waiting for busy threads, on the same connection. */
  readonly messageQueue: MessageQueueStore = sqliteMessageQueue(this.statements);

  /** When waiting pauses expire, on the same connection. */
  readonly pauseDeadlines: PauseDeadlineStore = sqlitePauseDeadlines(this.statements);

  /** Which process runs each background job's due time, in the same file. */
  readonly jobClaims: JobClaimStore = sqliteJobClaims(this.statements);

  /** Runs handed over at shutdown, in the same file. */
  readonly handoffs: HandoffStore = sqliteHandoffs(this.statements);
  /** Each incident's Slack message, shared by every process on the database. */
  readonly slackThreads: SlackThreadStore = sqliteSlackThreads(this.statements);
  /** Incidents' alert deliveries and notices, their threads' timed events and postmortem drafts. */
  readonly incidentLog: IncidentLogStore = sqliteIncidentLog(this.statements);

  async close(): Promise<void> {
    // The connection is shared with the checkpointer; its owner closes it.
  }
}
