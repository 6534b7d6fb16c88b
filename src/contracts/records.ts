import { z } from "zod";

/** The middle and the tail of a set of durations, in milliseconds (0 when there are none). */
export const LatencyPercentilesSchema = z.object({
  p50: z.number().describe("Median, in milliseconds"),
  p95: z.number().describe("95th percentile, in milliseconds"),
  count: z.number().int().describe("How many durations the percentiles are taken over"),
});

/** What became of the runs that paused for a person, within the window. */
export const PauseOutcomesSchema = z.object({
  paused: z.number().int().describe("Runs that paused at least once: the denominator of the rate"),
  resumedAndFinished: z.number().int().describe("Paused runs resumed and ended with a final answer"),
  resumedAndStopped: z.number().int().describe("Paused runs resumed and ended by a limit or an error"),
  cancelled: z.number().int().describe("Paused runs cancelled (during the pause or after the resume)"),
  waiting: z.number().int().describe("Paused runs still waiting for a person"),
  resumeFinishRate: z.number().describe("resumedAndFinished / paused, 0 when nothing paused"),
});

/** One UTC day of the window, for charts. */
export const SummaryDaySchema = z.object({
  day: z.string().describe("UTC date, YYYY-MM-DD"),
  runs: z.number().int().describe("Runs started that day that have ended (not waiting)"),
  stopReasons: z.record(z.string(), z.number().int()).describe("Ended runs by stop reason"),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().describe("0 until prices are configured"),
});

/** A tool that failed within the window. */
export const FailingToolSchema = z.object({
  tool: z.string(),
  calls: z.number().int().describe("Calls of the tool that ran (ok or error)"),
  failures: z.number().int().describe("Calls that ended with an error"),
  failureRate: z.number().describe("failures / calls"),
  p95Ms: z.number().describe("95th percentile of the tool's duration"),
});

/** A pause still waiting for a person (whatever its age). */
export const WaitingPauseSchema = z.object({
  threadId: z.string(),
  runId: z.string(),
  tool: z.string().describe("The first waiting call's tool"),
  since: z.string().describe("When the run paused, ISO 8601"),
});

/** `GET /api/records/summary?since=&until=`: aggregates over the runs started within the window. */
export const RecordsSummarySchema = z.object({
  since: z.string().describe("Start of the window, ISO 8601, inclusive"),
  until: z.string().describe("End of the window, ISO 8601, exclusive"),
  runs: z.number().int().describe("Runs that ended (stop reason other than interrupted)"),
  averageSteps: z.number().describe("Model turns per ended run, across its pauses"),
  toolCalls: z.number().int().describe("Calls that ran (ok or error); skipped, rejected and cancelled ones did not"),
  toolFailureRate: z.number().describe("Calls that ended with an error / toolCalls"),
  stopReasons: z.record(z.string(), z.number().int()).describe("Ended runs by stop reason"),
  resumedAndFinished: z.number().int().describe("Same as pauses.resumedAndFinished"),
  pauses: PauseOutcomesSchema,
  stepLatencyMs: LatencyPercentilesSchema.describe("Model call latency per step"),
  toolLatencyMs: LatencyPercentilesSchema.describe("Duration of calls that ran"),
  tokens: z.object({ input: z.number().int(), output: z.number().int() }),
  costUsd: z.number(),
  days: z.array(SummaryDaySchema).describe("Every UTC day of the window, oldest first, zeros included"),
  topFailingTools: z.array(FailingToolSchema).describe("Up to 10, most failures first"),
  waitingPauses: z.array(WaitingPauseSchema).describe("Up to 50, oldest first"),
});

/** The records summary the dashboard and `/api/records/summary` speak. */
export type RecordsSummary = z.infer<typeof RecordsSummarySchema>;
/** One day of the summary. */
export type SummaryDay = z.infer<typeof SummaryDaySchema>;
