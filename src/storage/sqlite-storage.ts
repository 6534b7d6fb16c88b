import type { Database } from "better-sqlite3";
import { StatementCache } from "./statement-cache.js";
import { packText, unpackText } from "./blob-codec.js";
import { eventFromRow, storedEventBody } from "./event-row.js";
import { addMissingColumns, SQLITE_SCHEMA } from "./sqlite-schema.js";
import { SUMMARY_SQL, summarize, type SummaryWindow } from "./summary.js";
import {
  readRecordsPage,
  TOOL_CALL_COLUMNS,
  toolCallValues,
  type RecordsPage,
  type RecordsQuery,
} from "./records-page.js";
import { compactSqliteThread, pruneSqlite } from "./sqlite-prune.js";
import type { CompactReport, PruneReport } from "./prune.js";
import { journalEntryFromRow } from "./journal-row.js";
import { LEASE_OWNER, ownerMayBeAlive } from "./lease-owner.js";
import type { DailyUsage, JournalEntry, RecordsSummary, Recorder, Storage } from "./types.js";
import { utcDay } from "./usage-day.js";
import type { Observation } from "../contracts/observation.js";
import type { RunEvent, RunEventBody } from "../contracts/events.js";
import { decisionValues } from "./decision-row.js";
import { threadListRow, threadListSql } from "./thread-list.js";
import type { ThreadListRow } from "./types.js";

type Row = Record<string, unknown>;

/** Storage on a better-sqlite3 connection to the checkpoints' SQLite file; each write commits on its own. */
export class SqliteStorage implements Storage {
  private readonly statements: StatementCache;

  constructor(private readonly db: Database) {
    db.exec(SQLITE_SCHEMA);
    addMissingColumns(db);
    this.statements = new StatementCache(db);
  }

  /** A record's write, in a transaction of its own (a record of several rows commits whole). */
  private writeRecord(write: () => void): void {
    this.db.transaction(write).immediate();
  }

  async createThread(threadId: string, userId: string): Promise<void> {
    this.statements
      .get("INSERT OR IGNORE INTO opspilot_threads (thread_id, user_id, created_at) VALUES (?, ?, ?)")
      .run(threadId, userId, Date.now());
  }

  async setThreadTitle(threadId: string, title: string): Promise<void> {
    this.statements
      .get("UPDATE opspilot_threads SET title = ? WHERE thread_id = ? AND title IS NULL")
      .run(title, threadId);
  }

  async listThreads(userId: string, limit: number): Promise<ThreadListRow[]> {
    const sql = threadListSql({
      stopReasonOf: (body) => `json_extract(${body}, '$.stopReason')`,
      now: "?",
      userId: "?",
      limit: "?",
    });
    return (this.statements.get(sql).all(Date.now(), userId, limit) as Row[]).map(threadListRow);
  }

  async threadOwner(threadId: string): Promise<string | undefined> {
    const row = this.statements.get("SELECT user_id FROM opspilot_threads WHERE thread_id = ?").get(threadId) as
      Row | undefined;
    return row?.user_id as string | undefined;
  }

  async getEntry(threadId: string, callId: string): Promise<JournalEntry | undefined> {
    const row = this.statements
      .get("SELECT * FROM opspilot_journal WHERE thread_id = ? AND call_id = ?")
      .get(threadId, callId) as Row | undefined;
    return row ? journalEntryFromRow(threadId, callId, row) : undefined;
  }

  async startEntry(entry: Omit<JournalEntry, "state" | "observation">): Promise<boolean> {
    const result = this.statements
      .get(
        "INSERT OR IGNORE INTO opspilot_journal (thread_id, call_id, tool, args_hash, state, started_at) VALUES (?, ?, ?, ?, 'started', ?)",
      )
      .run(entry.threadId, entry.callId, entry.tool, entry.argsHash, Date.now());
    return result.changes === 1;
  }

  async clearEntry(threadId: string, callId: string): Promise<void> {
    this.statements
      .get("DELETE FROM opspilot_journal WHERE thread_id = ? AND call_id = ? AND state = 'started'")
      .run(threadId, callId);
  }

  async finishEntry(threadId: string, callId: string, observation: Observation): Promise<void> {
    this.statements
      .get(
        "UPDATE opspilot_journal SET state = 'finished', observation = ?, finished_at = ? WHERE thread_id = ? AND call_id = ?",
      )
      .run(JSON.stringify(observation), Date.now(), threadId, callId);
  }

  async saveResult(threadId: string, callId: string, tool: string, raw: unknown, json?: string): Promise<void> {
    const packed = packText(json ?? JSON.stringify(raw ?? null));
    const savedAt = Date.now();
    this.writeRecord(() =>
      this.statements
        .get("INSERT OR REPLACE INTO opspilot_results VALUES (?, ?, ?, ?, ?)")
        .run(threadId, callId, tool, packed, savedAt),
    );
  }

  async getResult(threadId: string, callId: string): Promise<{ tool: string; raw: unknown } | undefined> {
    const row = this.statements
      .get("SELECT tool, raw FROM opspilot_results WHERE thread_id = ? AND call_id = ?")
      .get(threadId, callId) as Row | undefined;
    // A long result is stored compressed (a BLOB), a short one as JSON text.
    return row ? { tool: row.tool as string, raw: JSON.parse(unpackText(row.raw as string | Uint8Array)) } : undefined;
  }

  async appendEvent(threadId: string, runId: string, body: RunEventBody): Promise<RunEvent> {
    const [event] = await this.appendEvents(threadId, runId, [body]);
    return event!;
  }

  async appendEvents(threadId: string, runId: string, bodies: RunEventBody[]): Promise<RunEvent[]> {
    if (bodies.length === 0) return [];
    const append = this.db.transaction(() => bodies.map((body) => this.insertEvent(threadId, runId, body)));
    return append.immediate();
  }

  /** Writes an event with the thread's next sequence number; call it inside a transaction. */
  private insertEvent(threadId: string, runId: string, body: RunEventBody): RunEvent {
    const row = this.statements
      .get("SELECT COALESCE(MAX(seq), 0) AS seq FROM opspilot_events WHERE thread_id = ?")
      .get(threadId) as Row;
    const event = { ...body, threadId, runId, seq: (row.seq as number) + 1 } as RunEvent;
    this.statements
      .get("INSERT INTO opspilot_events VALUES (?, ?, ?, ?, ?, ?)")
      .run(threadId, event.seq, runId, event.type, storedEventBody(event), Date.now());
    return event;
  }

  async eventsAfter(threadId: string, afterSeq: number): Promise<RunEvent[]> {
    const rows = this.statements
      .get(
        "SELECT thread_id, run_id, seq, type, body FROM opspilot_events WHERE thread_id = ? AND seq > ? ORDER BY seq",
      )
      .all(threadId, afterSeq) as Row[];
    return rows.map(eventFromRow);
  }

  async acquireLease(threadId: string, runId: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const acquire = this.db.transaction(() => {
      this.dropDeadLease(threadId, now);
      return (
        this.statements
          .get("INSERT OR IGNORE INTO opspilot_leases (thread_id, run_id, owner, expires_at) VALUES (?, ?, ?, ?)")
          .run(threadId, runId, LEASE_OWNER, now + ttlMs).changes === 1
      );
    });
    return acquire.immediate();
  }

  async releaseLease(threadId: string, runId: string): Promise<void> {
    this.statements.get("DELETE FROM opspilot_leases WHERE thread_id = ? AND run_id = ?").run(threadId, runId);
  }

  async leaseHolder(threadId: string): Promise<string | undefined> {
    this.dropDeadLease(threadId, Date.now());
    const row = this.statements.get("SELECT run_id FROM opspilot_leases WHERE thread_id = ?").get(threadId) as
      Row | undefined;
    return row?.run_id as string | undefined;
  }

  async renewLease(threadId: string, runId: string, ttlMs: number): Promise<void> {
    this.statements
      .get("UPDATE opspilot_leases SET expires_at = ? WHERE thread_id = ? AND run_id = ?")
      .run(Date.now() + ttlMs, threadId, runId);
  }

  async requestCancel(threadId: string): Promise<boolean> {
    this.dropDeadLease(threadId, Date.now());
    return (
      this.statements.get("UPDATE opspilot_leases SET cancel_requested = 1 WHERE thread_id = ?").run(threadId)
        .changes === 1
    );
  }

  async cancelRequested(threadId: string, runId: string): Promise<boolean> {
    const row = this.statements
      .get("SELECT cancel_requested FROM opspilot_leases WHERE thread_id = ? AND run_id = ?")
      .get(threadId, runId) as Row | undefined;
    return row?.cancel_requested === 1;
  }

  /** Frees a lease that expired or whose process on this host is gone. */
  private dropDeadLease(threadId: string, now: number): void {
    const row = this.statements
      .get("SELECT owner, expires_at FROM opspilot_leases WHERE thread_id = ?")
      .get(threadId) as Row | undefined;
    if (row && ((row.expires_at as number) < now || !ownerMayBeAlive(row.owner as string))) {
      this.statements.get("DELETE FROM opspilot_leases WHERE thread_id = ?").run(threadId);
    }
  }

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

  async recordToolCall(call: Parameters<Recorder["recordToolCall"]>[0]): Promise<void> {
    this.writeRecord(() =>
      this.statements
        .get(`INSERT OR REPLACE INTO opspilot_tool_calls (${TOOL_CALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(...toolCallValues(call)),
    );
  }

  async recordDecision(decision: Parameters<Recorder["recordDecision"]>[0]): Promise<void> {
    this.statements
      .get(
        "INSERT OR REPLACE INTO opspilot_decisions (thread_id, call_id, interrupt_id, action, args_hash_before, args_hash_after, message, decided_at, user_id, role) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(...decisionValues(decision, Date.now()));
  }

  async recordRunEnd(run: Parameters<Recorder["recordRunEnd"]>[0]): Promise<void> {
    const finishedAt = Date.now();
    this.writeRecord(() =>
      this.statements
        .get(
          "UPDATE opspilot_runs SET finished_at = ?, stop_reason = ?, steps = ?, duration_ms = ?, resumed = MAX(resumed, ?), pauses = pauses + ?, tokens = COALESCE(?, tokens), cost_usd = COALESCE(?, cost_usd), tool_cost_units = COALESCE(?, tool_cost_units) WHERE run_id = ?",
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

  async close(): Promise<void> {
    // The connection is shared with the checkpointer; its owner closes it.
  }
}
