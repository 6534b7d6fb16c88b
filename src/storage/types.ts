import type { Observation } from "../contracts/observation.js";
import type { RunEvent, RunEventBody } from "../contracts/events.js";
import type { RecordsSummary } from "../contracts/records.js";
import type { RecordsPage, RecordsQuery } from "./records/records-page.js";
import type { Pruner } from "./retention/prune.js";
import type { JobClaimStore } from "./jobs/types.js";
import type { SlackThreadStore } from "./slack/types.js";
import type { IncidentStore } from "./incidents/incident-store.js";
import type { IncidentLogStore } from "./timeline/incident-log-store.js";
import type { MessageQueueStore } from "./queue/message-queue-store.js";
import type { PauseDeadlineStore } from "./approvals/pause-deadline-store.js";
import type { HandoffStore } from "./handoffs/handoff-store.js";
import type { Recorder, RunLimitsStore, UsageStore } from "./records/recorder.js";

export type {
  CallRecordOutcome,
  DailyUsage,
  Recorder,
  RunLimitsStore,
  ToolCallRecord,
  UsageStore,
} from "./records/recorder.js";
export type {
  IncidentLogEntry,
  IncidentLogStore,
  StoredPostmortem,
  TimedEvent,
} from "./timeline/incident-log-store.js";
export type { MessageQueueStore, QueuedMessage } from "./queue/message-queue-store.js";
export type { PauseDeadline, PauseDeadlineStore } from "./approvals/pause-deadline-store.js";
export type { HandedOverRun, HandoffStore } from "./handoffs/handoff-store.js";
export {
  DELIVERY_MEMORY_MS,
  type IncidentChange,
  type IncidentMessage,
  type IncidentRow,
  type IncidentStore,
  type NewIncident,
} from "./incidents/incident-store.js";

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

/** Everything opspilot stores beside LangGraph's checkpoints. */
export interface Storage extends WriteJournal, ResultStore, Recorder, ThreadStore, UsageStore, RunLimitsStore, Pruner {
  /** Incidents and their waiting messages, on the same connection. */
  readonly incidents: IncidentStore;
  /** Incidents' alert deliveries and notices, their threads' timed events and postmortem drafts (the timeline's reads). */
  readonly incidentLog: IncidentLogStore;
  /** Messages waiting for busy threads (`multitaskStrategy`), on the same connection. */
  readonly messageQueue: MessageQueueStore;
  /** When waiting pauses expire (`approvals.expiresAfter`), on the same connection. */
  readonly pauseDeadlines: PauseDeadlineStore;
  /** Which process runs each background job's due time (`service/jobs`), on the same connection. */
  readonly jobClaims: JobClaimStore;
  /** Runs handed over at shutdown that a process has yet to take over (`service/jobs/takeover.ts`). */
  readonly handoffs: HandoffStore;
  /** Each incident's Slack message, so updates become replies in its thread (`service/slack/bot-*`), on the same connection. */
  readonly slackThreads: SlackThreadStore;
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
