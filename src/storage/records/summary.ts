import type { RecordsSummary, SummaryDay } from "../../contracts/records.js";

type Row = Record<string, unknown>;

/** The window a summary covers, in epoch milliseconds: `since` inclusive, `until` exclusive. */
export interface SummaryWindow {
  since: number;
  until: number;
}

/** The rows a summary is computed from, read the same way from SQLite and PostgreSQL. */
export interface SummaryRows {
  /** Runs started within the window: run_id, started_at, stop_reason, steps, resumed, pauses. */
  runs: Row[];
  /** Steps of those runs: run_id, latency_ms, input_tokens, output_tokens and, once recorded, cost_usd. */
  steps: Row[];
  /** Tool calls of those runs: run_id, tool, outcome, duration_ms. */
  calls: Row[];
  /** Pauses waiting now, whatever their age: thread_id, run_id, finished_at (when it paused), and `interrupt`, the body of the thread's last `loop_interrupt` event. */
  waiting: Row[];
}

const DAY_MS = 86_400_000;
const TOP_FAILING_TOOLS = 10;

/**
 * Aggregates the records of a window into the figures of design §7. Done here rather than in
 * SQL so both databases give the same numbers (percentiles and day buckets especially).
 */
export function summarize(window: SummaryWindow, rows: SummaryRows): RecordsSummary {
  const days = emptyDays(window);
  const dayOfRun = new Map<string, SummaryDay | undefined>();
  const stopReasons: Record<string, number> = {};
  const pauses = { paused: 0, resumedAndFinished: 0, resumedAndStopped: 0, cancelled: 0, waiting: 0 };
  let ended = 0;
  let totalSteps = 0;
  for (const run of rows.runs) {
    const day = days.get(utcDay(Number(run.started_at)));
    dayOfRun.set(String(run.run_id), day);
    const reason = run.stop_reason as string | null | undefined;
    // Rows written before pauses were counted still show a pause through `resumed` or the stop reason.
    if (Number(run.pauses ?? 0) > 0 || Number(run.resumed) === 1 || reason === "interrupted") {
      pauses.paused++;
      if (reason === "interrupted") pauses.waiting++;
      else if (reason === "final_answer") pauses.resumedAndFinished++;
      else if (reason === "cancelled") pauses.cancelled++;
      else if (reason) pauses.resumedAndStopped++;
    }
    if (!reason || reason === "interrupted") continue;
    ended++;
    totalSteps += Number(run.steps ?? 0);
    stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
    if (day) {
      day.runs++;
      day.stopReasons[reason] = (day.stopReasons[reason] ?? 0) + 1;
    }
  }

  const tokens = { input: 0, output: 0 };
  let costUsd = 0;
  for (const step of rows.steps) {
    const input = Number(step.input_tokens ?? 0);
    const output = Number(step.output_tokens ?? 0);
    const cost = Number(step.cost_usd ?? 0);
    tokens.input += input;
    tokens.output += output;
    costUsd += cost;
    const day = dayOfRun.get(String(step.run_id));
    if (day) {
      day.inputTokens += input;
      day.outputTokens += output;
      day.costUsd += cost;
    }
  }

  // Skipped, rejected and cancelled calls never ran, so they neither fail nor take time.
  const ran = rows.calls.filter((call) => call.outcome === "ok" || call.outcome === "error");
  const failures = ran.filter((call) => call.outcome === "error").length;
  return {
    since: new Date(window.since).toISOString(),
    until: new Date(window.until).toISOString(),
    runs: ended,
    averageSteps: ended ? totalSteps / ended : 0,
    toolCalls: ran.length,
    toolFailureRate: ran.length ? failures / ran.length : 0,
    stopReasons,
    resumedAndFinished: pauses.resumedAndFinished,
    pauses: { ...pauses, resumeFinishRate: pauses.paused ? pauses.resumedAndFinished / pauses.paused : 0 },
    stepLatencyMs: percentiles(rows.steps.map((step) => Number(step.latency_ms))),
    toolLatencyMs: percentiles(ran.map((call) => Number(call.duration_ms))),
    tokens,
    costUsd,
    days: [...days.values()],
    topFailingTools: failingTools(ran),
    waitingPauses: rows.waiting.map((row) => ({
      threadId: String(row.thread_id),
      runId: String(row.run_id),
      tool: waitingTool(row.interrupt),
      since: new Date(Number(row.finished_at)).toISOString(),
    })),
  };
}

/** Nearest-rank percentiles: each is a duration that was actually measured. */
export function percentiles(values: number[]): { p50: number; p95: number; count: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
  return { p50: rank(0.5), p95: rank(0.95), count: sorted.length };
}

function failingTools(ran: Row[]) {
  const byTool = new Map<string, Row[]>();
  for (const call of ran) byTool.set(String(call.tool), [...(byTool.get(String(call.tool)) ?? []), call]);
  return [...byTool.entries()]
    .map(([tool, calls]) => {
      const failures = calls.filter((call) => call.outcome === "error").length;
      const p95Ms = percentiles(calls.map((call) => Number(call.duration_ms))).p95;
      return { tool, calls: calls.length, failures, failureRate: failures / calls.length, p95Ms };
    })
    .filter((tool) => tool.failures > 0)
    .sort((a, b) => b.failures - a.failures || b.failureRate - a.failureRate || a.tool.localeCompare(b.tool))
    .slice(0, TOP_FAILING_TOOLS);
}

function emptyDays(window: SummaryWindow): Map<string, SummaryDay> {
  const days = new Map<string, SummaryDay>();
  for (let at = Math.floor(window.since / DAY_MS) * DAY_MS; at < window.until; at += DAY_MS) {
    days.set(utcDay(at), { day: utcDay(at), runs: 0, stopReasons: {}, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  }
  return days;
}

function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

function waitingTool(interrupt: unknown): string {
  try {
    const body = JSON.parse(String(interrupt)) as { calls?: Array<{ tool?: string }> };
    return body.calls?.[0]?.tool ?? "";
  } catch {
    return "";
  }
}

/** The SQL both databases run for a summary (`?` placeholders: since, until; none in `waiting`). */
export const SUMMARY_SQL = {
  runs: "SELECT run_id, started_at, stop_reason, steps, resumed, pauses FROM opspilot_runs WHERE started_at >= ? AND started_at < ?",
  // `s.*` so cost columns count once they are recorded.
  steps:
    "SELECT s.* FROM opspilot_steps s JOIN opspilot_runs r ON r.run_id = s.run_id WHERE r.started_at >= ? AND r.started_at < ?",
  calls:
    "SELECT c.run_id, c.tool, c.outcome, c.duration_ms FROM opspilot_tool_calls c JOIN opspilot_runs r ON r.run_id = c.run_id WHERE r.started_at >= ? AND r.started_at < ?",
  waiting: `SELECT r.thread_id, r.run_id, r.finished_at, (SELECT e.body FROM opspilot_events e WHERE e.thread_id = r.thread_id AND e.type = 'loop_interrupt' ORDER BY e.seq DESC LIMIT 1) AS interrupt FROM opspilot_runs r WHERE r.stop_reason = 'interrupted' ORDER BY r.finished_at, r.run_id LIMIT 50`,
} as const;
