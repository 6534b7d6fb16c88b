import type { RecordsSummary } from "./types.js";

/** Aggregates run and tool-call rows into the figures of design §7. */
export function summarize(runs: Array<Record<string, unknown>>, calls: Array<Record<string, unknown>>): RecordsSummary {
  const finished = runs.filter((run) => run.stop_reason !== null && run.stop_reason !== undefined);
  const stopReasons: Record<string, number> = {};
  for (const run of finished)
    stopReasons[run.stop_reason as string] = (stopReasons[run.stop_reason as string] ?? 0) + 1;
  const failed = calls.filter((call) => call.outcome === "error").length;
  const totalSteps = finished.reduce((sum, run) => sum + Number(run.steps ?? 0), 0);
  return {
    runs: finished.length,
    averageSteps: finished.length ? totalSteps / finished.length : 0,
    toolCalls: calls.length,
    toolFailureRate: calls.length ? failed / calls.length : 0,
    stopReasons,
    resumedAndFinished: finished.filter((run) => Number(run.resumed) === 1 && run.stop_reason !== "interrupted").length,
  };
}
