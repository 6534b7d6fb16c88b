import type { StopReason } from "../stop-reasons.js";

/** The advice after a stop, by kind: a limit can be raised; a loop, a cancel or a failure only asked again. */
export type NextStep = "limit" | "rephrase" | "cancelled" | "error";

/** A unit a duration is written in, largest first. */
export type DurationUnit = "d" | "h" | "m" | "s";

/** The words of a guard rule's stop detail, one per rule, with the figures each quotes. */
export interface LimitWords {
  maxSteps(limit: number): string;
  timeout(limitMs: number): string;
  tokens(tokens: number): string;
  cost(costUsd: number): string;
  failedSteps(steps: number): string;
  identicalCalls(times: number): string;
  /** The A→B→A→B oscillation between two sets. */
  alternation: string;
  cycle(length: number, example: string): string;
  approvalPauses(limit: number): string;
}

/** Why a model call failed after retries, and the sentence that ends the run. */
export interface ModelFailureWords {
  credentials: string;
  rejected(status: string): string;
  rateLimited: string;
  timedOut: string;
  unreachable: string;
  endsHere: string;
  /** The model refused the request as too long twice, the second time after a harder compaction. */
  contextFull: string;
  /** The model answered with nothing. */
  emptyReply: string;
}

/** The words of a pause: why each call waits, how it ended when no one answered or someone refused it. */
export interface PauseWords {
  /** Joins a list of field names or people. */
  listSeparator: string;
  /** Joins the reasons of the calls of one pause. */
  reasonSeparator: string;
  /** A call's reason followed by its approvals so far (`approvalsLine`). */
  withApprovals(reason: string, approvals: string): string;
  highRisk(tool: string): string;
  needs(tool: string, fields: string): string;
  needsThenEgress(tool: string, fields: string, egress: string): string;
  /** The tail of a high-risk call that also misses fields: approve the final args. */
  finalArgs: string;
  reasonAndFinalArgs(reason: string, tool: string, finalArgs: string): string;
  needsAndFinalArgs(tool: string, fields: string, finalArgs: string): string;
  /** "1 of 2 approvals (olga)"; `requester` is named when they may not approve their own call. */
  approvals(names: readonly string[], required: number, requester?: string): string;
  /** An egress call after the thread read untrusted content from `shown` (of `total` sources). */
  egress(tool: string, shown: readonly string[], total: number): string;
  expired(tool: string, within: string, approval: boolean): string;
  rejected(tool: string, note: string | undefined): string;
  /** A pause ended by a cancel while it waited. */
  stoppedWhileWaiting: string;
  /** A pause ended by a newer message. */
  superseded: string;
}

/** Every sentence the loop writes itself, in one language. */
export interface LoopWords {
  /** A stop's first line, by reason; `stopped` for a reason without its own. */
  stopTitle: Partial<Record<StopReason, string>>;
  stopped: string;
  nothingFound: string;
  /** Heads the list of findings (ends with a line break). */
  foundSoFar: string;
  nextStep: Record<NextStep, string>;
  limits: LimitWords;
  /** The detail of a run cancelled by the user. */
  runCancelled: string;
  /** The detail of a run that failed. */
  runFailed: string;
  model: ModelFailureWords;
  /** A duration: `count` of `unit`. */
  duration(count: number, unit: DurationUnit): string;
  pause: PauseWords;
}
