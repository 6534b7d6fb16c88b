import type { Database } from "better-sqlite3";
import type { EnvironmentId, LogLevel } from "./data/index.js";
import { logMatchExpression } from "./search.js";

/** Which log lines to read. */
export interface LogFilter {
  /** Service id or name; the store resolves it. */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** Only this severity; all when omitted. */
  level?: LogLevel;
  /** Words or error codes every line must contain, in either language. */
  query?: string;
  /** How far back to look, in hours. */
  sinceHours: number;
  /** Most lines to return (the counts cover every matching line). */
  limit: number;
}

/** Matching lines of one error code. */
export interface CodeCount {
  /** Error code. */
  code: string;
  /** Severity of its lines. */
  level: LogLevel;
  /** Number of matching lines. */
  count: number;
  /** Timestamp of the newest line (ISO). */
  lastSeen: string;
  /** Message of the newest line. */
  sample: string;
}

/** One log line as shown to the model. */
export interface LogLine {
  /** Timestamp (ISO). */
  ts: string;
  /** Severity. */
  level: LogLevel;
  /** Error code, or null. */
  code: string | null;
  /** Message text. */
  message: string;
}

/** Every matching line counted, grouped by error code, and the newest `limit` lines. */
export interface LogSearchResult {
  /** Total matching lines. */
  total: number;
  /** Matching lines per error code, most frequent first. */
  byCode: CodeCount[];
  /** Newest matching lines, at most `limit`. */
  lines: LogLine[];
}

interface LogRow {
  level: LogLevel;
  code: string | null;
  message: string;
  seconds_ago: number;
}

/** Reads log lines; timestamps are the store's clock minus each line's age. */
export function queryLogs(db: Database, filter: LogFilter, now: Date): LogSearchResult {
  const expression = filter.query ? logMatchExpression(filter.query) : null;
  const rows = db
    .prepare(
      `SELECT level, code, message, seconds_ago FROM ops_logs
       WHERE service = ? AND environment = ? AND seconds_ago <= ? AND (? IS NULL OR level = ?)
         AND (? IS NULL OR id IN (SELECT rowid FROM ops_logs_fts WHERE ops_logs_fts MATCH ?))
       ORDER BY seconds_ago, id`,
    )
    .all(
      filter.service,
      filter.environment,
      filter.sinceHours * 3600,
      filter.level ?? null,
      filter.level ?? null,
      expression,
      expression,
    ) as LogRow[];
  const timestamp = (row: LogRow) => new Date(now.getTime() - row.seconds_ago * 1000).toISOString();
  const byCode = new Map<string, CodeCount>();
  for (const row of rows) {
    if (row.code === null) continue;
    const entry = byCode.get(row.code);
    if (entry) entry.count += 1;
    else
      byCode.set(row.code, {
        code: row.code,
        level: row.level,
        count: 1,
        lastSeen: timestamp(row),
        sample: row.message,
      });
  }
  return {
    total: rows.length,
    byCode: [...byCode.values()].sort((left, right) => right.count - left.count || left.code.localeCompare(right.code)),
    lines: rows
      .slice(0, filter.limit)
      .map((row) => ({ ts: timestamp(row), level: row.level, code: row.code, message: row.message })),
  };
}
