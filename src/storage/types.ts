import type { Observation, ErrorCode } from "../contracts/observation.js";
import type { GivenApproval } from "../contracts/calls.js";
import type { RunEvent, RunEventBody } from "../contracts/events.js";
import type { StopReason } from "../contracts/stop-reasons.js";
import type { RecordsSummary } from "../contracts/records.js";
import type { RecordsPage, RecordsQuery } from "./records/records-page.js";
import type { Pruner } from "./retention/prune.js";
import type { JobClaimStore } from "./jobs/types.js";

/** A write call's journal entry (design §2.6). */
export interface JournalEntry {
  threadId: string;
  callId: string;
  tool: string;
  argsHash: string;
  /** `started` until the tool returned; a `started` entry found later means the outcome is unknown. */
  state: "started" | "finished";
  /** The observation recorded when the call finished. */
  observation?: Observation;
}

/** Durable at-most-once bookkeeping of write calls, in the checkpoints' database. */
export interface WriteJournal {
  getEntry(threadId: string, callId: string): Promise<JournalEntry | undefined>;
  /** Records that a write is about to run; false when an entry already exists. */
  startEntry(entry: Omit<JournalEntry, "state" | "observation">): Promise<boolean>;
  finishEntry(threadId: string, callId: string, observation: Observation): Promise<void>;
  /** Drops a `started` entry whose tool asked for the user before applying anything. */
  clearEntry(threadId: string, callId: string): Promise<void>;
}

/** Full raw tool results, kept outside the message list, addressable by call id. */
export interface ResultStore {
  /** Keeps a result; `json` is `JSON.stringify(raw)` when the caller has written it already. */
  saveResult(threadId: string, callId: string, tool: string, raw: unknown, json?: string): Promise<void>;
  getResult(threadId: string, callId: string): Promise<{ tool: string; raw: unknown } | undefined>;
}

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

/** Aggregates over the records (the shape `/api/records/summary` serves). */
export type { RecordsSummary } from "../contracts/records.js";

/** One of a user's threads as the thread list reads it (`GET /api/threads`). */
export interface ThreadListRow {
  threadId: string;
  /** The first user message, cut; absent before the first run (and in threads created before titles were kept). */
  title?: string;
  /** Epoch ms of the thread's last recorded event, or of its creation when it has none. */
  updatedAt: number;
  /** Whether the thread's last recorded event leaves it waiting for its user (a pause). */
  waiting: boolean;
  /** Whether a run holds the thread's lease (it is running, or its process died and the lease has not expired). */
  leased: boolean;
  /** Whether the thread has any recorded event. */
  hasEvents: boolean;
}

/** Thread ownership, event log and run leases: what the runtime needs beside checkpoints. */
export interface ThreadStore {
  createThread(threadId: string, userId: string): Promise<void>;
  threadOwner(threadId: string): Promise<string | undefined>;
  /** Keeps the thread's title (its first user message, cut) unless it already has one. */
  setThreadTitle(threadId: string, title: string): Promise<void>;
  /**
   * A user's threads for the thread list: those waiting for the user first, then the most
   * recently active; at most `limit`.
   */
  listThreads(userId: string, limit: number): Promise<ThreadListRow[]>;
  /** Appends an event, stamping the next per-thread sequence number. */
  appendEvent(threadId: string, runId: string, body: RunEventBody): Promise<RunEvent>;
  /** Appends events in order, numbered one after another, all or none (one statement where the database allows). */
  appendEvents(threadId: string, runId: string, bodies: RunEventBody[]): Promise<RunEvent[]>;
  eventsAfter(threadId: string, afterSeq: number): Promise<RunEvent[]>;
  /** Takes the thread's run lease; false when another live run holds it. */
  acquireLease(threadId: string, runId: string, ttlMs: number): Promise<boolean>;
  releaseLease(threadId: string, runId: string): Promise<void>;
  /** Extends a lease this run still holds (heartbeat). */
  renewLease(threadId: string, runId: string, ttlMs: number): Promise<void>;
  leaseHolder(threadId: string): Promise<string | undefined>;
  /** Asks the process holding the thread's lease to cancel its run; false when no run holds it. */
  requestCancel(threadId: string): Promise<boolean>;
  /** Whether a cancel was asked for the run holding this lease. */
  cancelRequested(threadId: string, runId: string): Promise<boolean>;
}

/** A message sent to a busy (or paused) thread, waiting for its turn (`multitaskStrategy` `enqueue` or `interrupt`). */
export interface QueuedMessage {
  /** Also the id of the user message it becomes, so a thread that holds it has taken it (exactly once). */
  messageId: string;
  threadId: string;
  /** `interrupt` runs before every `enqueue` and closes a pause it meets; `enqueue` waits its turn. */
  strategy: "enqueue" | "interrupt";
  message: string;
  /** Who sent it: the run acts as them. */
  userId: string;
  role: string;
  /** The run's requested limits (a `RunLimitsRequest`), when any. */
  options?: Record<string, unknown>;
  /** Epoch ms it was queued. */
  queuedAt: number;
  /** `pending` until its run takes it (then it is deleted); `failed` when its run was refused (`failure` says why). */
  status: "pending" | "failed";
  failure?: { code: string; message: string };
}

/** Messages waiting for their threads, in the database every process shares; a delivered one is deleted. */
export interface MessageQueueStore {
  /** Stores a pending message. */
  queueMessage(message: Omit<QueuedMessage, "status" | "failure">): Promise<void>;
  /** The thread's pending and failed messages in the order they run: interrupts first, then oldest first. */
  threadQueue(threadId: string): Promise<QueuedMessage[]>;
  /** Threads with pending messages. */
  queuedThreads(): Promise<string[]>;
  /** Forgets a delivered message (its thread holds it now), or marks it failed with the refusal's code and message. */
  finishQueuedMessage(messageId: string, outcome: { failure?: { code: string; message: string } }): Promise<void>;
  /** Forgets a message (refused at once, so the sender got the refusal instead). */
  removeQueuedMessage(messageId: string): Promise<void>;
}

/** When a thread's pause expires, and as whom its run goes on then (the user whose run paused). */
export interface PauseDeadline {
  threadId: string;
  /** The pause; a thread waits on one at a time. */
  interruptId: string;
  /** Epoch ms its approvals expire. */
  expiresAt: number;
  /** Who ran into the pause, and with which role: the run goes on as them once it expired. */
  userId: string;
  role: string;
}

/** The deadlines of waiting pauses, in the database every process shares, so any process can expire them. */
export interface PauseDeadlineStore {
  /** Keeps the thread's pause deadline (one per thread: a later pause replaces it). */
  trackDeadline(deadline: PauseDeadline): Promise<void>;
  /** Deadlines passed by `now`, earliest first, at most `limit`. */
  dueDeadlines(now: number, limit: number): Promise<PauseDeadline[]>;
  /** Forgets the deadline of that pause (not of a later one the thread waits on). */
  forgetDeadline(threadId: string, interruptId: string): Promise<void>;
}

/** Everything opspilot stores beside LangGraph's checkpoints. */
export interface Storage extends WriteJournal, ResultStore, Recorder, ThreadStore, UsageStore, RunLimitsStore, Pruner {
  /** Incidents and their waiting messages, on the same connection. */
  readonly incidents: IncidentStore;
  /** Messages waiting for busy threads (`multitaskStrategy`), on the same connection. */
  readonly messageQueue: MessageQueueStore;
  /** When waiting pauses expire (`approvals.expiresAfter`), on the same connection. */
  readonly pauseDeadlines: PauseDeadlineStore;
  /** Which process runs each background job's due time (`service/jobs`), on the same connection. */
  readonly jobClaims: JobClaimStore;
  /** Tool calls and runs of a thread (records, for `opspilot records` and tests). */
  threadRecords(threadId: string): Promise<{
    runs: Array<Record<string, unknown>>;
    toolCalls: Array<Record<string, unknown>>;
    steps: Array<Record<string, unknown>>;
    decisions: Array<Record<string, unknown>>;
  }>;
  /** One page of records (whole runs, oldest first) of a thread or of a window, for paging and export. */
  recordsPage(query: RecordsQuery): Promise<RecordsPage>;
  /** Aggregates over the runs started within the window (epoch milliseconds, `until` exclusive). */
  summary(window: { since: number; until: number }): Promise<RecordsSummary>;
  close(): Promise<void>;
}

/** An incident: one alert group of one source, investigated on a thread of its own. */
export interface IncidentRow {
  incidentId: string;
  /** Where the alert came from (`alertmanager`). */
  source: string;
  /** The source's group key (Alertmanager's `groupKey`, PagerDuty's incident id): each episode of a group is one incident. */
  groupKey: string;
  /** The incident's thread, owned by the alert user. */
  threadId: string;
  status: "firing" | "resolved";
  alertname: string;
  severity?: string;
  /** The group's common labels. */
  labels: Record<string, string>;
  /** ISO 8601 start of the group's earliest alert. */
  startsAt: string;
  /** Epoch ms the group was reported resolved. */
  resolvedAt?: number;
  /** Fingerprints of the firing alerts last delivered, sorted. */
  fingerprints: string[];
  /** Epoch ms of the first delivery. */
  createdAt: number;
}

/** A new incident with its thread's owner and first message, stored all or none. */
export interface NewIncident extends Omit<IncidentRow, "status" | "resolvedAt"> {
  /** Owner of the incident's thread. */
  userId: string;
  /** The first message to run on the thread. */
  message: string;
}

/** A delivery that changed an incident: applied only when its fingerprints are still `expectedFingerprints`. */
export interface IncidentChange {
  incidentId: string;
  expectedFingerprints: string[];
  fingerprints: string[];
  status: IncidentRow["status"];
  resolvedAt?: number;
  /** The message queued for the thread with the change. */
  message: string;
  /** `run` starts a run with it; `note` only records it in the thread. */
  kind: IncidentMessage["kind"];
}

/** A message waiting to reach an incident's thread, in order. */
export interface IncidentMessage {
  incidentId: string;
  seq: number;
  threadId: string;
  kind: "run" | "note";
  message: string;
}

/** Incidents and the messages waiting for their threads. */
export interface IncidentStore {
  /** Stores the incident, its thread and its first message; when `incidentId` exists, returns that one instead. */
  openIncident(incident: NewIncident): Promise<{ incident: IncidentRow; created: boolean }>;
  /** The group's newest incident, and how many the group has had (one per episode: firing until resolved). */
  latestIncident(source: string, groupKey: string): Promise<{ incident?: IncidentRow; episodes: number }>;
  /** Applies a change to a firing incident and queues its message in one transaction; false when another delivery changed it first. */
  changeIncident(change: IncidentChange): Promise<boolean>;
  getIncident(incidentId: string): Promise<IncidentRow | undefined>;
  /** Firing incidents first, then newest first; at most `limit`. */
  listIncidents(limit: number): Promise<IncidentRow[]>;
  /** Every message not yet delivered to its thread, oldest first. */
  pendingIncidentMessages(): Promise<IncidentMessage[]>;
  /** Marks a message delivered. */
  finishIncidentMessage(incidentId: string, seq: number): Promise<void>;
  /** Whether a webhook delivery id of `source` was remembered (and not yet pruned). */
  knowsDelivery(source: string, deliveryId: string): Promise<boolean>;
  /**
   * Remembers a webhook delivery id, received at `at` (epoch ms): true the first time, false when any
   * process remembered it before (insert-or-ignore on the primary key). Prunes ids older than
   * `DELIVERY_MEMORY_MS` on the way.
   */
  rememberDelivery(source: string, deliveryId: string, at: number): Promise<boolean>;
}

/** How long `IncidentStore.rememberDelivery` keeps a delivery id: 7 days, longer than any source's retries. */
export const DELIVERY_MEMORY_MS = 7 * 24 * 60 * 60 * 1000;
