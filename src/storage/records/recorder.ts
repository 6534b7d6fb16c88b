import type { ErrorCode } from "../../contracts/observation.js";
import type { GivenApproval } from "../../contracts/calls.js";
import type { StopReason } from "../../contracts/stop-reasons.js";
import type { ModelFailure } from "../../contracts/model-failure.js";

/** Outcome of one tool call as the records keep it. */
export type CallRecordOutcome = "ok" | "error" | "interrupt" | "cancelled" | "rejected" | "skipped";

/** One tool call as the records keep it. */
export interface ToolCallRecord {
  runId: string;
  threadId: string;
  callId: string;
  tool: string;
  argsDigest: string;
  /** The args as a readable, masked line (`service=payment-service, environment=prod`); NULL when absent. */
  argsSummary?: string;
  outcome: CallRecordOutcome;
  errorCode?: ErrorCode;
  durationMs: number;
}

/** The records of design §7. */
export interface Recorder {
  recordRunStart(run: { runId: string; threadId: string; userId: string; startedAt: number }): Promise<void>;
  recordStep(step: {
    runId: string;
    step: number;
    latencyMs: number;
    inputTokens: number;
    outputTokens: number;
    toolCalls: number;
    /** Dollars this step's model call cost, from the configured prices (0 without prices). */
    costUsd: number;
  }): Promise<void>;
  /**
   * A step's tool calls, in the order the model made them, written together (one statement on
   * PostgreSQL); a call recorded before is replaced and moves to the end.
   */
  recordToolCalls(calls: readonly ToolCallRecord[]): Promise<void>;
  /** A user's answer to a pause: approve, edit (with the new frozen args' hash) or reject, and who gave it. */
  recordDecision(decision: {
    threadId: string;
    callId: string;
    interruptId: string;
    action: string;
    /** The answering user. */
    userId: string;
    /** The role the user answered with (design §2.9). */
    role: string;
    argsHashBefore: string;
    argsHashAfter?: string;
    message?: string;
    /** Every approval given to a four-eyes call so far, oldest first (each one is recorded as it is given). */
    approvals?: readonly GivenApproval[];
  }): Promise<void>;
  recordRunEnd(run: {
    runId: string;
    stopReason: StopReason;
    steps: number;
    durationMs: number;
    resumed: boolean;
    /** Tokens the run spent so far (across its pauses); kept as recorded before when absent. */
    tokens?: number;
    /** Dollars the run spent so far; kept as recorded before when absent. */
    costUsd?: number;
    /** Cost units its tools spent so far (tools declaring `costUnits`); kept as recorded before when absent. */
    toolCostUnits?: number;
    /** Why the model call that ended the run failed (`model_error`, JSON); kept as recorded before when absent. */
    modelError?: ModelFailure;
  }): Promise<void>;
}

/** What one user spent on one UTC day, across every process sharing the database (quotas). */
export interface DailyUsage {
  /** Runs started. */
  runs: number;
  /** Tokens spent by model calls. */
  tokens: number;
  /** Dollars spent by model calls, from the configured prices. */
  costUsd: number;
}

/** The limits each run was started with, so a resume or a recovery, from any process, keeps them. */
export interface RunLimitsStore {
  /** Keeps `limits` (a JSON object) for the run; a second call for the same run replaces them. */
  saveRunLimits(threadId: string, runId: string, limits: Record<string, unknown>): Promise<void>;
  /** The limits the run was started with; undefined when it was started without any. */
  runLimits(runId: string): Promise<Record<string, unknown> | undefined>;
}

/** Per-user daily usage, counted as runs start and steps are recorded. */
export interface UsageStore {
  /** What `userId` spent on `day` (`YYYY-MM-DD`, UTC); zeros when nothing was recorded. */
  usageOn(userId: string, day: string): Promise<DailyUsage>;
}
