import type { ToolCallRecord } from "./recorder.js";

type Row = Record<string, unknown>;

/** Where a page of records ends: the last run's start time and id (runs are ordered by both). */
export interface RecordsCursor {
  startedAt: number;
  runId: string;
}

/** Which runs' records to read: one thread's, or every thread's within a window; a page at a time. */
export interface RecordsQuery {
  /** Only this thread's runs; every thread's when absent. */
  threadId?: string;
  /** Runs started at or after this time (epoch ms). */
  since?: number;
  /** Runs started before this time (epoch ms). */
  until?: number;
  /** Most runs in the page. */
  limit: number;
  /** The cursor of the previous page. */
  after?: RecordsCursor;
}

/** A page of runs with the steps, tool calls and pause decisions that belong to them. */
export interface RecordsPage {
  runs: Row[];
  steps: Row[];
  toolCalls: Row[];
  decisions: Row[];
  /** Where the next page starts; absent on the last page. */
  next?: RecordsCursor;
}

/** Tool-call columns as clients see them (PostgreSQL's ordering column left out). */
export const TOOL_CALL_COLUMNS =
  "thread_id, call_id, run_id, tool, args_digest, outcome, error_code, duration_ms, args_summary";
/** A tool-call record's values in `TOOL_CALL_COLUMNS` order. */
export function toolCallValues(call: ToolCallRecord): unknown[] {
  return [
    call.threadId,
    call.callId,
    call.runId,
    call.tool,
    call.argsDigest,
    call.outcome,
    call.errorCode ?? null,
    call.durationMs,
    call.argsSummary ?? null,
  ];
}

/** Decision columns as clients see them. */
export const DECISION_COLUMNS =
  "thread_id, call_id, interrupt_id, action, args_hash_before, args_hash_after, message, decided_at, user_id, role, approvals";

/** How one database is read: `?` placeholders, and the column that keeps rows in insertion order. */
export interface RecordsReader {
  read(sql: string, params: unknown[]): Promise<Row[]>;
  /** `rowid` in SQLite, `seq` in PostgreSQL. */
  insertionOrder: string;
}

/**
 * Reads one page of records the same way from both databases. Pages hold whole runs, so a
 * run's steps and calls never straddle two pages; a decision belongs to the run of its call.
 */
export async function readRecordsPage(reader: RecordsReader, query: RecordsQuery): Promise<RecordsPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const condition = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (query.threadId !== undefined) condition("thread_id = ?", query.threadId);
  if (query.since !== undefined) condition("started_at >= ?", query.since);
  if (query.until !== undefined) condition("started_at < ?", query.until);
  if (query.after) {
    const { startedAt, runId } = query.after;
    condition("(started_at > ? OR (started_at = ? AND run_id > ?))", startedAt, startedAt, runId);
  }
  const filter = where.length ? `WHERE ${where.join(" AND ")}` : "";
  // One more than asked tells whether another page follows.
  const fetched = await reader.read(`SELECT * FROM opspilot_runs ${filter} ORDER BY started_at, run_id LIMIT ?`, [
    ...params,
    query.limit + 1,
  ]);
  const runs = fetched.slice(0, query.limit);
  if (runs.length === 0) return { runs, steps: [], toolCalls: [], decisions: [] };
  const ids = runs.map((run) => String(run.run_id));
  const list = ids.map(() => "?").join(", ");
  const order = new Map(ids.map((id, index) => [id, index]));
  const runOrder = (row: Row) => order.get(String(row.run_id)) ?? 0;
  // Stable: within a run, rows keep the database's order.
  const byRun = (rows: Row[]) => [...rows].sort((a, b) => runOrder(a) - runOrder(b));
  const steps = await reader.read(`SELECT * FROM opspilot_steps WHERE run_id IN (${list}) ORDER BY step`, ids);
  const toolCalls = await reader.read(
    `SELECT ${TOOL_CALL_COLUMNS} FROM opspilot_tool_calls WHERE run_id IN (${list}) ORDER BY ${reader.insertionOrder}`,
    ids,
  );
  const decisions = await reader.read(
    `SELECT ${DECISION_COLUMNS.split(", ")
      .map((column) => `d.${column}`)
      .join(", ")}, c.run_id AS run_id
     FROM opspilot_decisions d JOIN opspilot_tool_calls c ON c.thread_id = d.thread_id AND c.call_id = d.call_id
     WHERE c.run_id IN (${list}) ORDER BY d.decided_at, d.${reader.insertionOrder}`,
    ids,
  );
  const last = runs[runs.length - 1]!;
  return {
    runs,
    steps: byRun(steps),
    toolCalls: byRun(toolCalls),
    decisions: byRun(decisions),
    ...(fetched.length > query.limit
      ? { next: { startedAt: Number(last.started_at), runId: String(last.run_id) } }
      : {}),
  };
}

/** `?` placeholders numbered for PostgreSQL (`$1`, `$2`, …). */
export function numberedPlaceholders(sql: string): string {
  let next = 0;
  return sql.replace(/\?/g, () => `$${++next}`);
}
