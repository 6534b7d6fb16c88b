import pg from "pg";
import { SUMMARY_SQL, summarize, type SummaryWindow } from "./summary.js";
import {
  DECISION_COLUMNS,
  numberedPlaceholders,
  readRecordsPage,
  TOOL_CALL_COLUMNS,
  toolCallValues,
  type RecordsPage,
  type RecordsQuery,
} from "./records-page.js";
import { compactPostgresThread, prunePostgres } from "./postgres-prune.js";
import type { CompactReport, PruneReport } from "./prune.js";
import { journalEntryFromRow } from "./journal-row.js";
import { LEASE_OWNER, ownerMayBeAlive } from "./lease-owner.js";
import type { DailyUsage, JournalEntry, RecordsSummary, Recorder, Storage } from "./types.js";
import { utcDay } from "./usage-day.js";
import { runTogether, withLiterals } from "./postgres-literal.js";
import type { Observation } from "../contracts/observation.js";
import type { RunEvent, RunEventBody } from "../contracts/events.js";
import { decisionValues } from "./decision-row.js";
import { threadListRow, threadListSql } from "./thread-list.js";
import type { ThreadListRow } from "./types.js";

type Row = Record<string, unknown>;

const INT8_OID = 20;

/** BIGINT times and durations come back as numbers, as from SQLite (milliseconds stay far below 2^53). */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** The database's clock in ms: lease expiry is judged by one clock, whatever the hosts' clocks say. */
const NOW_MS = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint";

/**
 * One statement appending events: the counter row stays locked until the events are committed,
 * so appends from any process get contiguous numbers and commit in order (a reader never sees a
 * gap fill later). `numbered` reads their numbers from the statement's result.
 */
function eventsAppend(threadId: string, runId: string, bodies: RunEventBody[]) {
  const stored = bodies.map((body) => ({ ...body, threadId, runId }));
  return {
    text: `WITH next AS (
         INSERT INTO opspilot_event_seqs AS counter VALUES ($1, $3)
         ON CONFLICT (thread_id) DO UPDATE SET last_seq = counter.last_seq + $3 RETURNING last_seq)
       INSERT INTO opspilot_events (thread_id, seq, run_id, type, body, created_at)
       SELECT $1, next.last_seq - $3 + event.n, $2, event.type, event.body, $4
       FROM next, unnest($5::text[], $6::text[]) WITH ORDINALITY AS event(type, body, n)
       RETURNING seq`,
    values: [
      threadId,
      runId,
      bodies.length,
      Date.now(),
      bodies.map((body) => body.type),
      stored.map((event) => JSON.stringify(event)),
    ],
    // The numbers run on from the thread's last, in the order of `bodies`.
    numbered: (result: pg.QueryResult): RunEvent[] => {
      const first = Math.min(...result.rows.map((row: Row) => Number(row.seq)));
      return stored.map((event, i) => ({ ...event, seq: first + i }) as RunEvent);
    },
  };
}

/** How a `PostgresStorage` writes its records. */
export interface PostgresStorageOptions {
  /**
   * Hold record writes (steps, tool calls, results, a run's start and end, events given to
   * `appendEventsWithCommit`) for the checkpointer's next save, which runs them in its
   * transaction (see `drainRecords`); what no save takes by the next event-loop turn commits on
   * its own. Off: each record is a statement of its own.
   */
  deferRecords?: boolean;
}

/** A record's statement (its values written in), waiting for a commit. */
interface WaitingRecord {
  sql: string;
  /** Told the statement's result once it has committed. */
  onCommitted?: (result: pg.QueryResult) => void;
}

/** Records taken by a save: run them, in order, in its transaction, after `previous`. */
export interface DrainedRecords {
  /** The statements, values written in (see `withLiterals`), in the order they were made. */
  statements: string[];
  /** The commit of the records taken before these: they must commit first. */
  previous: Promise<void>;
  /** Call with the statements' results once the transaction committed. */
  committed(results: pg.QueryResult[]): void;
  /** Call when it did not: the records wait again, for the next save or read. */
  failed(): void;
}

/**
 * Storage on a pg pool to the checkpoints' PostgreSQL database, with the semantics of
 * `SqliteStorage`, safe when several processes share the database. The schema must exist
 * (`openPostgres` prepares it).
 */
export class PostgresStorage implements Storage {
  private readonly deferRecords: boolean;

  /** Record statements waiting for a commit, in the order they were made. */
  private waiting: WaitingRecord[] = [];

  /** The commit of the records last taken (by a save or on their own). */
  private inFlight: Promise<void> = Promise.resolve();

  private drainScheduled = false;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresStorageOptions = {},
  ) {
    this.deferRecords = options.deferRecords ?? false;
  }

  /** Takes the records waiting, for a save to run in its transaction; undefined when none wait. */
  drainRecords(): DrainedRecords | undefined {
    if (this.waiting.length === 0) return undefined;
    const batch = this.waiting;
    this.waiting = [];
    const previous = this.inFlight;
    let done!: () => void;
    this.inFlight = new Promise((resolve) => (done = resolve));
    return {
      statements: batch.map((record) => record.sql),
      previous,
      committed: (results) => {
        try {
          batch.forEach((record, i) => record.onCommitted?.(results[i]!));
        } finally {
          done();
        }
      },
      failed: () => {
        this.waiting = [...batch, ...this.waiting];
        done();
      },
    };
  }

  /** Commits the records waiting and waits for those under way: before a read that could include them, and before closing. */
  async flushRecords(): Promise<void> {
    const drained = this.drainRecords();
    if (drained) {
      await drained.previous;
      try {
        drained.committed(await runTogether(this.pool, drained.statements));
      } catch (error) {
        drained.failed();
        throw error;
      }
    }
    await this.inFlight;
  }

  /** A record's write: a statement now, or held for the next save (see `deferRecords`). */
  private async writeRecord(
    text: string,
    values: unknown[],
    onCommitted?: (result: pg.QueryResult) => void,
  ): Promise<void> {
    if (!this.deferRecords) {
      const result = await this.pool.query({ text, values, types });
      onCommitted?.(result);
      return;
    }
    this.waiting.push({ sql: withLiterals(text, values), onCommitted });
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(this.drainAlone);
  }

  /** No save took the records by this turn: they commit on their own (a failure leaves them for the next save or read). */
  private readonly drainAlone = (): void => {
    this.drainScheduled = false;
    this.flushRecords().catch(() => undefined);
  };

  private async rows(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query<Row>({ text, values, types })).rows;
  }

  /** Runs a statement and returns how many rows it inserted, updated or deleted. */
  private async changes(text: string, values: unknown[]): Promise<number> {
    return (await this.pool.query({ text, values, types })).rowCount ?? 0;
  }

  async createThread(threadId: string, userId: string): Promise<void> {
    await this.changes(
      "INSERT INTO opspilot_threads (thread_id, user_id, created_at) VALUES ($1, $2, $3) ON CONFLICT (thread_id) DO NOTHING",
      [threadId, userId, Date.now()],
    );
  }

  async threadOwner(threadId: string): Promise<string | undefined> {
    const [row] = await this.rows("SELECT user_id FROM opspilot_threads WHERE thread_id = $1", [threadId]);
    return row?.user_id as string | undefined;
  }

  async setThreadTitle(threadId: string, title: string): Promise<void> {
    await this.changes("UPDATE opspilot_threads SET title = $2 WHERE thread_id = $1 AND title IS NULL", [
      threadId,
      title,
    ]);
  }

  async listThreads(userId: string, limit: number): Promise<ThreadListRow[]> {
    await this.flushRecords();
    const sql = threadListSql({
      // Bodies are JSON text; a body that is not JSON never reaches here (appendEvent writes them).
      stopReasonOf: (body) => `(${body}::json ->> 'stopReason')`,
      now: NOW_MS,
      userId: "$1",
      limit: "$2",
    });
    return (await this.rows(sql, [userId, limit])).map(threadListRow);
  }

  async getEntry(threadId: string, callId: string): Promise<JournalEntry | undefined> {
    const [row] = await this.rows("SELECT * FROM opspilot_journal WHERE thread_id = $1 AND call_id = $2", [
      threadId,
      callId,
    ]);
    return row ? journalEntryFromRow(threadId, callId, row) : undefined;
  }

  async startEntry(entry: Omit<JournalEntry, "state" | "observation">): Promise<boolean> {
    // The primary key decides between concurrent starts: exactly one insert wins.
    const inserted = await this.changes(
      "INSERT INTO opspilot_journal (thread_id, call_id, tool, args_hash, state, started_at) VALUES ($1, $2, $3, $4, 'started', $5) ON CONFLICT (thread_id, call_id) DO NOTHING",
      [entry.threadId, entry.callId, entry.tool, entry.argsHash, Date.now()],
    );
    return inserted === 1;
  }

  async clearEntry(threadId: string, callId: string): Promise<void> {
    await this.changes("DELETE FROM opspilot_journal WHERE thread_id = $1 AND call_id = $2 AND state = 'started'", [
      threadId,
      callId,
    ]);
  }

  async finishEntry(threadId: string, callId: string, observation: Observation): Promise<void> {
    await this.changes(
      "UPDATE opspilot_journal SET state = 'finished', observation = $1, finished_at = $2 WHERE thread_id = $3 AND call_id = $4",
      [JSON.stringify(observation), Date.now(), threadId, callId],
    );
  }

  async saveResult(threadId: string, callId: string, tool: string, raw: unknown, json?: string): Promise<void> {
    await this.writeRecord(
      "INSERT INTO opspilot_results VALUES ($1, $2, $3, $4, $5) ON CONFLICT (thread_id, call_id) DO UPDATE SET tool = EXCLUDED.tool, raw = EXCLUDED.raw, created_at = EXCLUDED.created_at",
      [threadId, callId, tool, json ?? JSON.stringify(raw ?? null), Date.now()],
    );
  }

  async getResult(threadId: string, callId: string): Promise<{ tool: string; raw: unknown } | undefined> {
    await this.flushRecords();
    const [row] = await this.rows("SELECT tool, raw FROM opspilot_results WHERE thread_id = $1 AND call_id = $2", [
      threadId,
      callId,
    ]);
    return row ? { tool: row.tool as string, raw: JSON.parse(row.raw as string) } : undefined;
  }

  async appendEvent(threadId: string, runId: string, body: RunEventBody): Promise<RunEvent> {
    const [event] = await this.appendEvents(threadId, runId, [body]);
    return event!;
  }

  async appendEvents(threadId: string, runId: string, bodies: RunEventBody[]): Promise<RunEvent[]> {
    if (bodies.length === 0) return [];
    // An event never gets ahead of the records made before it (a run's end before its run_finished).
    await this.flushRecords();
    const append = eventsAppend(threadId, runId, bodies);
    return append.numbered(await this.pool.query({ text: append.text, values: append.values, types }));
  }

  /**
   * Appends events with the next save's transaction, after the records waiting (see
   * `deferRecords`): a step's events then commit with the checkpoint that holds the step.
   * `onAppended` receives them, numbered, once that commit is done. False when this storage
   * writes each record alone: append them one by one then.
   */
  appendEventsWithCommit(
    threadId: string,
    runId: string,
    bodies: RunEventBody[],
    onAppended: (events: RunEvent[]) => void,
  ): boolean {
    if (!this.deferRecords) return false;
    const append = eventsAppend(threadId, runId, bodies);
    void this.writeRecord(append.text, append.values, (result) => onAppended(append.numbered(result)));
    return true;
  }

  async eventsAfter(threadId: string, afterSeq: number): Promise<RunEvent[]> {
    const rows = await this.rows(
      "SELECT seq, body FROM opspilot_events WHERE thread_id = $1 AND seq > $2 ORDER BY seq",
      [threadId, afterSeq],
    );
    return rows.map((row) => ({ ...JSON.parse(row.body as string), seq: row.seq }) as RunEvent);
  }

  async acquireLease(threadId: string, runId: string, ttlMs: number): Promise<boolean> {
    await this.dropDeadLease(threadId);
    const inserted = await this.changes(
      `INSERT INTO opspilot_leases (thread_id, run_id, owner, expires_at) VALUES ($1, $2, $3, ${NOW_MS} + $4) ON CONFLICT (thread_id) DO NOTHING`,
      [threadId, runId, LEASE_OWNER, Math.ceil(ttlMs)],
    );
    return inserted === 1;
  }

  async releaseLease(threadId: string, runId: string): Promise<void> {
    await this.changes("DELETE FROM opspilot_leases WHERE thread_id = $1 AND run_id = $2", [threadId, runId]);
  }

  async leaseHolder(threadId: string): Promise<string | undefined> {
    await this.dropDeadLease(threadId);
    const [row] = await this.rows("SELECT run_id FROM opspilot_leases WHERE thread_id = $1", [threadId]);
    return row?.run_id as string | undefined;
  }

  async renewLease(threadId: string, runId: string, ttlMs: number): Promise<void> {
    await this.changes(`UPDATE opspilot_leases SET expires_at = ${NOW_MS} + $3 WHERE thread_id = $1 AND run_id = $2`, [
      threadId,
      runId,
      ttlMs,
    ]);
  }

  async requestCancel(threadId: string): Promise<boolean> {
    await this.dropDeadLease(threadId);
    return (
      (await this.changes("UPDATE opspilot_leases SET cancel_requested = true WHERE thread_id = $1", [threadId])) === 1
    );
  }

  async cancelRequested(threadId: string, runId: string): Promise<boolean> {
    const [row] = await this.rows("SELECT cancel_requested FROM opspilot_leases WHERE thread_id = $1 AND run_id = $2", [
      threadId,
      runId,
    ]);
    return row?.cancel_requested === true;
  }

  /** Frees a lease that expired or whose process on this host is gone. */
  private async dropDeadLease(threadId: string): Promise<void> {
    const [lease] = await this.rows(
      `SELECT run_id, owner, expires_at, expires_at < ${NOW_MS} AS expired FROM opspilot_leases WHERE thread_id = $1`,
      [threadId],
    );
    if (!lease || (!lease.expired && ownerMayBeAlive(lease.owner as string))) return;
    // Only the lease judged dead: another process may have replaced it since.
    await this.changes(
      "DELETE FROM opspilot_leases WHERE thread_id = $1 AND run_id = $2 AND owner = $3 AND expires_at = $4",
      [threadId, lease.run_id, lease.owner, lease.expires_at],
    );
  }

  async recordRunStart(run: Parameters<Recorder["recordRunStart"]>[0]): Promise<void> {
    // One statement, so a recovered run that records its start again counts once against the quota.
    await this.writeRecord(
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
    await this.flushRecords();
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
    await this.writeRecord(
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

  async recordToolCall(call: Parameters<Recorder["recordToolCall"]>[0]): Promise<void> {
    // `seq = DEFAULT` moves a replaced row to the end, like SQLite's INSERT OR REPLACE does with rowid.
    await this.writeRecord(
      `INSERT INTO opspilot_tool_calls (${TOOL_CALL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (thread_id, call_id) DO UPDATE SET
         run_id = EXCLUDED.run_id, tool = EXCLUDED.tool, args_digest = EXCLUDED.args_digest, outcome = EXCLUDED.outcome,
         error_code = EXCLUDED.error_code, duration_ms = EXCLUDED.duration_ms, args_summary = EXCLUDED.args_summary,
         seq = DEFAULT`,
      // The column is an integer here; SQLite keeps what it is given.
      toolCallValues({ ...call, durationMs: Math.round(call.durationMs) }),
    );
  }

  async recordDecision(decision: Parameters<Recorder["recordDecision"]>[0]): Promise<void> {
    await this.changes(
      `INSERT INTO opspilot_decisions (${DECISION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (thread_id, call_id) DO UPDATE SET
         interrupt_id = EXCLUDED.interrupt_id, action = EXCLUDED.action, args_hash_before = EXCLUDED.args_hash_before,
         args_hash_after = EXCLUDED.args_hash_after, message = EXCLUDED.message, decided_at = EXCLUDED.decided_at,
         user_id = EXCLUDED.user_id, role = EXCLUDED.role, seq = DEFAULT`,
      decisionValues(decision, Date.now()),
    );
  }

  async recordRunEnd(run: Parameters<Recorder["recordRunEnd"]>[0]): Promise<void> {
    await this.writeRecord(
      "UPDATE opspilot_runs SET finished_at = $1, stop_reason = $2, steps = $3, duration_ms = $4, resumed = GREATEST(resumed, $5), pauses = pauses + $6, tokens = COALESCE($8, tokens), cost_usd = COALESCE($9, cost_usd), tool_cost_units = COALESCE($10, tool_cost_units) WHERE run_id = $7",
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
      ],
    );
  }

  async threadRecords(threadId: string) {
    await this.flushRecords();
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
    await this.flushRecords();
    return prunePostgres(this.pool, before);
  }

  async compactThread(threadId: string): Promise<CompactReport> {
    await this.flushRecords();
    return compactPostgresThread(this.pool, threadId);
  }

  async recordsPage(query: RecordsQuery): Promise<RecordsPage> {
    await this.flushRecords();
    return readRecordsPage(
      { read: (sql, params) => this.rows(numberedPlaceholders(sql), params), insertionOrder: "seq" },
      query,
    );
  }

  async summary(window: SummaryWindow): Promise<RecordsSummary> {
    await this.flushRecords();
    const params = [window.since, window.until];
    return summarize(window, {
      runs: await this.rows(numberedPlaceholders(SUMMARY_SQL.runs), params),
      steps: await this.rows(numberedPlaceholders(SUMMARY_SQL.steps), params),
      calls: await this.rows(numberedPlaceholders(SUMMARY_SQL.calls), params),
      waiting: await this.rows(SUMMARY_SQL.waiting),
    });
  }

  async close(): Promise<void> {
    // The pool is shared with the checkpointer; its owner (`openPostgres`) ends it.
    await this.flushRecords();
  }
}
