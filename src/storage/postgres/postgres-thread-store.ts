import pg from "pg";
import { journalEntryFromRow } from "../records/journal-row.js";
import { LEASE_OWNER, ownerMayBeAlive } from "../lease-owner.js";
import { threadListRow, threadListSql } from "../thread-list.js";
import type { JournalEntry, ThreadListRow, ThreadStore, WriteJournal } from "../types.js";
import type { Observation } from "../../contracts/observation.js";
import type { RunEvent, RunEventBody } from "../../contracts/events.js";

/** A row as node-postgres returns it. */
export type Row = Record<string, unknown>;

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
 * gap fill later).
 */
const APPEND_EVENTS = `WITH next AS (
    INSERT INTO opspilot_event_seqs AS counter VALUES ($1, $3)
    ON CONFLICT (thread_id) DO UPDATE SET last_seq = counter.last_seq + $3 RETURNING last_seq)
  INSERT INTO opspilot_events (thread_id, seq, run_id, type, body, created_at)
  SELECT $1, next.last_seq - $3 + event.n, $2, event.type, event.body, $4
  FROM next, unnest($5::text[], $6::text[]) WITH ORDINALITY AS event(type, body, n)
  RETURNING seq`;

/**
 * The thread side of `PostgresStorage`: ownership, the event log, run leases and the write
 * journal, each call one statement with bound parameters, safe when several processes share
 * the database.
 */
export class PostgresThreadStore implements ThreadStore, WriteJournal {
  constructor(protected readonly pool: pg.Pool) {}

  /** The rows a statement returns, BIGINTs as numbers. */
  protected async rows(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query<Row>({ text, values, types })).rows;
  }

  /** Runs a statement and returns how many rows it inserted, updated or deleted. */
  protected async changes(text: string, values: unknown[]): Promise<number> {
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

  async appendEvent(threadId: string, runId: string, body: RunEventBody): Promise<RunEvent> {
    const [event] = await this.appendEvents(threadId, runId, [body]);
    return event!;
  }

  async appendEvents(threadId: string, runId: string, bodies: RunEventBody[]): Promise<RunEvent[]> {
    if (bodies.length === 0) return [];
    const stored = bodies.map((body) => ({ ...body, threadId, runId }));
    const numbers = await this.rows(APPEND_EVENTS, [
      threadId,
      runId,
      bodies.length,
      Date.now(),
      bodies.map((body) => body.type),
      stored.map((event) => JSON.stringify(event)),
    ]);
    // The numbers run on from the thread's last, in the order of `bodies`.
    const first = Math.min(...numbers.map((row) => Number(row.seq)));
    return stored.map((event, i) => ({ ...event, seq: first + i }) as RunEvent);
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
}
