import type { ThreadListRow } from "./types.js";

type Row = Record<string, unknown>;

/**
 * The thread list's query, for SQLite and PostgreSQL alike: each of the user's threads with
 * its last event (the per-thread primary key finds it) and its lease. A thread waits for its
 * user when that event is the pause (`loop_interrupt`) or the run's end at the pause
 * (`run_finished` with `stopReason` `interrupted`; those bodies are kept as JSON text). Each
 * dialect passes how it reads the JSON body's stop reason, its clock in ms, and its
 * placeholders for the user id and the limit.
 */
export function threadListSql(dialect: {
  stopReasonOf: (body: string) => string;
  now: string;
  userId: string;
  limit: string;
}): string {
  const { stopReasonOf } = dialect;
  // Nested so only a run_finished body is read as JSON: other events' bodies may be stored compressed.
  const waiting = `CASE WHEN e.type = 'loop_interrupt' THEN 1 WHEN e.type = 'run_finished' THEN (CASE WHEN ${stopReasonOf("e.body")} = 'interrupted' THEN 1 ELSE 0 END) ELSE 0 END`;
  return `
SELECT t.thread_id, t.title, t.created_at, e.created_at AS event_at, e.type AS event_type,
  ${waiting} AS waiting,
  CASE WHEN l.expires_at > ${dialect.now} THEN 1 ELSE 0 END AS leased
FROM opspilot_threads t
LEFT JOIN opspilot_events e ON e.thread_id = t.thread_id
  AND e.seq = (SELECT MAX(m.seq) FROM opspilot_events m WHERE m.thread_id = t.thread_id)
LEFT JOIN opspilot_leases l ON l.thread_id = t.thread_id
WHERE t.user_id = ${dialect.userId}
ORDER BY waiting DESC, COALESCE(e.created_at, t.created_at) DESC, t.thread_id
LIMIT ${dialect.limit}`;
}

/** A row of `threadListSql` as the storage returns it; a leased thread is not waiting, whatever its last event. */
export function threadListRow(row: Row): ThreadListRow {
  const leased = Number(row.leased) === 1;
  return {
    threadId: String(row.thread_id),
    ...(typeof row.title === "string" && row.title !== "" ? { title: row.title } : {}),
    updatedAt: Number(row.event_at ?? row.created_at),
    waiting: !leased && Number(row.waiting) === 1,
    leased,
    hasEvents: row.event_type !== null && row.event_type !== undefined,
  };
}
