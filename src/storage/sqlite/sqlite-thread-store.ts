import type { Database } from "better-sqlite3";
import { StatementCache } from "./statement-cache.js";
import { packText, unpackText } from "../checkpoints/blob-codec.js";
import { eventFromRow, storedEventBody } from "../records/event-row.js";
import { addMissingColumns, SQLITE_SCHEMA } from "./sqlite-schema.js";
import { journalEntryFromRow } from "../records/journal-row.js";
import { LEASE_OWNER, ownerMayBeAlive } from "../lease-owner.js";
import { threadListRow, threadListSql } from "../thread-list.js";
import type { JournalEntry, ResultStore, ThreadListRow, ThreadStore, WriteJournal } from "../types.js";
import type { Observation } from "../../contracts/observation.js";
import type { RunEvent, RunEventBody } from "../../contracts/events.js";

/** A row as better-sqlite3 returns it. */
export type Row = Record<string, unknown>;

/**
 * The thread side of `SqliteStorage`: ownership, the thread list, the write journal, results,
 * the event log and run leases, on a better-sqlite3 connection; each write commits on its own.
 */
export class SqliteThreadStore implements ThreadStore, WriteJournal, ResultStore {
  protected readonly statements: StatementCache;
  /** Runs a function in a transaction of its own, taking the write lock at once (better-sqlite3's `immediate`). */
  private readonly inTransaction: { immediate: <T>(write: () => T) => T };

  constructor(protected readonly db: Database) {
    db.exec(SQLITE_SCHEMA);
    addMissingColumns(db);
    this.statements = new StatementCache(db);
    // One wrapper for every transaction: better-sqlite3 builds a new one per `transaction()` call.
    this.inTransaction = db.transaction(<T>(write: () => T) => write()) as unknown as typeof this.inTransaction;
  }

  /** A record's write, in a transaction of its own (a record of several rows commits whole). */
  protected writeRecord(write: () => void): void {
    this.inTransaction.immediate(write);
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
    return this.inTransaction.immediate(() => bodies.map((body) => this.insertEvent(threadId, runId, body)));
  }

  /** Writes an event with the thread's next sequence number; call it inside a transaction. */
  private insertEvent(threadId: string, runId: string, body: RunEventBody): RunEvent {
    const event = { ...body, threadId, runId, seq: 0 } as RunEvent;
    const row = this.statements
      .get(
        `INSERT INTO opspilot_events SELECT :thread, COALESCE(MAX(seq), 0) + 1, :run, :type, :body, :at
          FROM opspilot_events WHERE thread_id = :thread RETURNING seq`,
      )
      .get({ thread: threadId, run: runId, type: event.type, body: storedEventBody(event), at: Date.now() }) as Row;
    event.seq = row.seq as number;
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
    return this.inTransaction.immediate(() => {
      this.dropDeadLease(threadId, now);
      return (
        this.statements
          .get("INSERT OR IGNORE INTO opspilot_leases (thread_id, run_id, owner, expires_at) VALUES (?, ?, ?, ?)")
          .run(threadId, runId, LEASE_OWNER, now + ttlMs).changes === 1
      );
    });
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
}
