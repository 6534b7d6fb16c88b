import type { Taint } from "../../graph/calls/taint.js";
import type { PauseValue, ResumeValue } from "../../contracts/pause/pause.js";
import type { EventBodyOf, RunEvent, StreamEvent } from "../../contracts/events.js";
import type { RunOptionsRequest } from "../../graph/limits.js";
import type { RunUser } from "../../contracts/user.js";
import type { RecordsSummary } from "../../storage/types.js";
import type { RecordsCursor } from "../../storage/records/records-page.js";
import type { ExportLine } from "../events/records-export.js";
import type { MultitaskStrategy } from "./multitask-strategy.js";

/** Whether a thread can take a message, is running, or waits for the user. */
export type ThreadStatus = "idle" | "running" | "interrupted";

/** A message as clients see it: an assistant's calls and a tool's result are the events' own fields (design §6). */
export type MessageView =
  | { id: string; role: "user"; content: string }
  | {
      id: string;
      role: "assistant";
      content: string;
      toolCalls: Array<Pick<EventBodyOf<"tool_call">, "callId" | "tool" | "args">>;
    }
  | ({ id: string; role: "tool" } & Omit<EventBodyOf<"tool_result">, "type"> & { content: string });

/** A thread as `GET /api/threads/:id` returns it. */
export interface ThreadView {
  /** Thread id. */
  threadId: string;
  /** Current status. */
  status: ThreadStatus;
  /** The whole history. */
  messages: MessageView[];
  /** The pending pause, when status is `interrupted`. */
  interrupt?: PauseValue;
  /** True when a run stopped mid-step (its process died); `recoverRun` finishes it. */
  unfinished?: boolean;
  /** The untrusted tools the thread read, first read first, once it read any: its egress calls wait for a person. */
  taint?: Taint;
  /** Messages sent with `enqueue` or `interrupt` that wait for their turn (or were refused); absent when none. */
  queued?: QueuedMessageView[];
}

/** A message waiting in a thread's queue, as `GET /api/threads/:id` shows it. */
export interface QueuedMessageView {
  /** The id its user message will have in the thread. */
  messageId: string;
  content: string;
  strategy: "enqueue" | "interrupt";
  /** Its place among the waiting messages, from 1; absent on a refused one. */
  position?: number;
  /** ISO 8601 time it was sent. */
  queuedAt: string;
  /** Who sent it. */
  userId: string;
  /** Why it will not run, when its run was refused when its turn came (a quota, a role). */
  failed?: { code: string; message: string };
}

/** One of the caller's threads in the thread list (`GET /api/threads`). */
export interface ThreadListItem {
  threadId: string;
  /** Running while a run holds the thread, interrupted while it waits for its user, else idle. */
  status: ThreadStatus;
  /** The first user message, cut to one short line; empty before the first run. */
  title: string;
  /** ISO 8601 time of the thread's last recorded event (or of its creation). */
  updatedAt: string;
  /** True when the thread waits for the caller's answer to a pause. */
  waitingForYou: boolean;
}

/** What a thread's runs left behind, row by row, a page at a time. */
export interface ThreadRecords {
  runs: Array<Record<string, unknown>>;
  steps: Array<Record<string, unknown>>;
  toolCalls: Array<Record<string, unknown>>;
  decisions: Array<Record<string, unknown>>;
  /** Where the next page starts; absent on the last page. */
  next?: RecordsCursor;
}

/** Which page of a thread's records to read. */
export interface RecordsPageRequest {
  /** Most runs in the page. */
  limit: number;
  /** The previous page's `next`. */
  after?: RecordsCursor;
}

/** Starting a run: the thread, the user's message and the caller. */
export interface StartRunRequest {
  /** Thread to run on; it must exist and belong to `user`. */
  threadId: string;
  /** The user's message. */
  message: string;
  /** Who asks. */
  user: RunUser;
  /** Per-run limits and options (override the defaults; limits may not pass the ceilings). */
  options?: RunOptionsRequest;
  /** Id of the user message; a thread that holds it already refuses the start (a queued message runs once). */
  messageId?: string;
  /** Close a pause the thread waits on first (its calls rejected as superseded by this message) instead of refusing. */
  supersede?: boolean;
}

/** Posting a message with a `multitaskStrategy` (`reject` when absent: a plain `startRun`). */
export interface PostMessageRequest extends Omit<StartRunRequest, "messageId" | "supersede"> {
  multitaskStrategy?: MultitaskStrategy;
}

/** What posting a message came to: its run's events, or its place in the thread's queue. */
export type PostOutcome =
  | { kind: "started"; events: AsyncIterable<StreamEvent> }
  /** Stored; `position` is its place among the thread's waiting messages (0: another process has started it). */
  | { kind: "queued"; messageId: string; position: number };

/** Resuming a paused run with the user's decisions. */
export interface ResumeRunRequest {
  /** Paused thread. */
  threadId: string;
  /** Resume value of design §4 (validated; a bad one throws `ResumeRejectedError`). */
  resume: unknown;
  /** Who answers. */
  user: RunUser;
  /** Per-run limits and options (limits may not pass the ceilings). */
  options?: RunOptionsRequest;
}

/**
 * What the CLI, the HTTP API and tests use to drive opspilot. `startRun` and `resumeRun`
 * validate and take the thread's lock before they return, so refusals (unknown thread,
 * busy, bad resume) are thrown as `OpsPilotError`s and nothing has changed; the returned
 * iterable then yields the run's events until `run_finished`, with `assistant_delta` fragments
 * (not recorded) between them while a model writes its text.
 */
export interface Runtime {
  /** Creates a thread owned by `user`. */
  createThread(user: RunUser): Promise<string>;
  /** Starts a run on a thread. */
  startRun(request: StartRunRequest): Promise<AsyncIterable<StreamEvent>>;
  /** Posts a message by its multitask strategy: runs it, queues it, or stops what the thread does and runs it. */
  postMessage(request: PostMessageRequest): Promise<PostOutcome>;
  /**
   * Waits for a queued message of this sender and starts it here when its turn comes: its events,
   * or undefined when another process started it or `signal` aborted (it stays queued then).
   */
  awaitQueued(request: {
    threadId: string;
    messageId: string;
    user: RunUser;
    signal?: AbortSignal;
  }): Promise<AsyncIterable<StreamEvent> | undefined>;
  /** Delivers every sender's queued messages from this process, at once and after each run here (the HTTP server does; idempotent). */
  serveQueue(): void;
  /** One pass over every thread's queued messages (the app's `queue` job); rejects when the pass failed. */
  sweepQueue(): Promise<void>;
  /** One pass expiring the pauses whose approvals are past their `expiresAt` (the app's `approval-expiry` job). */
  sweepApprovalExpiry(): Promise<void>;
  /** Resumes a paused thread. */
  resumeRun(request: ResumeRunRequest): Promise<AsyncIterable<StreamEvent>>;
  /** Finishes a run whose process died mid-step, from its last checkpoint (writes stay at most once). */
  recoverRun(threadId: string, user: RunUser): Promise<AsyncIterable<StreamEvent>>;
  /** Cancels the thread's running run (in any process) or ends its pause; false when there was neither. */
  cancelRun(threadId: string, user: RunUser): Promise<boolean>;
  /** The thread's status, messages and pending pause. */
  getThread(threadId: string, user: RunUser): Promise<ThreadView>;
  /** The caller's own threads: those waiting for them first, then the most recently active; at most `limit`. */
  listThreads(user: RunUser, options: { limit: number; shared?: boolean }): Promise<ThreadListItem[]>;
  /** The full result of one call (masked, not cut), or undefined when none was kept. */
  getResult(
    threadId: string,
    user: RunUser,
    callId: string,
  ): Promise<{ callId: string; tool: string; result: unknown } | undefined>;
  /** A page of the thread's records (design §7): whole runs, oldest first, with their steps, tool calls and pause decisions. */
  getRecords(threadId: string, user: RunUser, page: RecordsPageRequest): Promise<ThreadRecords>;
  /** Every record of the runs started within the window, of every user (for an admin's export). */
  exportRecords(window: { since: number; until: number }): AsyncIterable<ExportLine>;
  /** Aggregates over the records of every thread's runs started within the window (epoch ms, `until` exclusive). */
  recordsSummary(window: { since: number; until: number }): Promise<RecordsSummary>;
  /** Recorded events of the thread after a sequence number. */
  eventsAfter(threadId: string, user: RunUser, afterSeq: number): Promise<RunEvent[]>;
  /**
   * Shutdown's first half: starts no queued run, stops each running run at its next checkpoint
   * for another process to recover, and cancels those still going after the shutdown grace.
   * Settles when no run of this process is left; idempotent.
   */
  drain(): Promise<void>;
  /** Drains, then releases connections. */
  close(): Promise<void>;
}

export type { ResumeValue };
