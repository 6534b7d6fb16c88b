// Types of run-follower.js for the Node tests, written against the event contract itself.
import type { AssistantDelta, RunEvent, StreamEvent } from "../../src/contracts/events.js";
import type { InterruptValue } from "../../src/contracts/pause/pause.js";

type Recorded<T extends RunEvent["type"]> = Extract<RunEvent, { type: T }>;

/** One model turn of a run: `key` is its number, or `legacy-<n>` for turns recorded before they were numbered. */
export interface Step {
  key: number | string;
  step: number | undefined;
  streamed: string | undefined;
  message: { messageId: string; content: string } | undefined;
  calls: string[];
}

/** What a run shows, in order: its steps, messages outside a turn, and its pauses' places. */
export type Block =
  | { kind: "step"; key: number | string }
  | { kind: "message"; messageId: string; content: string }
  | { kind: "pause"; interruptId: string };

/** One run of the thread. */
export interface Run {
  runId: string;
  state: "running" | Recorded<"run_finished">["stopReason"] | undefined;
  steps: Step[];
  blocks: Block[];
  openStep: number | string | undefined;
  finish: Pick<Recorded<"run_finished">, "stopReason" | "steps" | "durationMs" | "tokens" | "costUsd"> | undefined;
}

/** One tool call, with its result once it has one. */
export interface Call {
  callId: string;
  runId: string;
  step: number | string;
  tool: string;
  args: unknown;
  state: "proposed" | "waiting" | "ok" | "error";
  risk?: "low" | "high";
  result?: Recorded<"tool_result">;
}

/** A pause that waits for an answer, as an event or as the thread view shows it. */
export type Interrupt = InterruptValue | Recorded<"loop_interrupt">;

/** The state of the conversation on the page. */
export interface Conversation {
  threadId: string | undefined;
  seen: ReadonlySet<number>;
  lastSeq: number;
  runs: Run[];
  calls: Record<string, Call>;
  pauses: Array<{ runId: string; interrupt: Recorded<"loop_interrupt"> }>;
  waiting: Interrupt | undefined;
  finished: boolean;
  applied: StreamEvent | undefined;
}

/** The recorded event types the page follows. */
export const RECORDED_EVENT_TYPES: readonly string[];
/** The live, unrecorded event type. */
export const DELTA_EVENT_TYPE: AssistantDelta["type"];
/** A thread with nothing shown yet. */
export function startConversation(threadId: string | undefined): Conversation;
/** Takes in one streamed event; duplicates, other threads' events and unknown types change nothing but the cursor. */
export function follow(state: Conversation, event: StreamEvent): Conversation;
/** Records the thread view's pending pause (undefined: none waits). */
export function withPendingPause(state: Conversation, interrupt: InterruptValue | undefined): Conversation;
/** Marks the start of a stream. */
export function expectRunEnd(state: Conversation): Conversation;
/** The result recorded for a call, if any. */
export function resultOf(state: Conversation, callId: string): Recorded<"tool_result"> | undefined;
/** Applies an event without the sequence-number check. */
export function applyEvent(state: Conversation, event: StreamEvent): Conversation;
