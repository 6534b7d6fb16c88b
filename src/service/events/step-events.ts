import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ModelStep, RunEventBody } from "../../contracts/events.js";
import type { PauseValue } from "../../contracts/pause/pause.js";
import type { StopReason } from "../../contracts/stop-reasons.js";
import type { ModelTurn } from "../../graph/state.js";
import type { ArgsView } from "./args-view.js";
import { toMessageView } from "./message-views.js";

/** What a step's events are told against: the messages already told (by id) and the pause already told, if any. */
export interface StepBefore {
  /** Ids of the messages whose events were told (or that were there before the run). */
  messageIds: ReadonlySet<string>;
  /** The pause already told. */
  pause?: PauseValue;
}

/** The state a step left, as far as its events go. */
export interface StepAfter {
  /** The state's messages, or the step's update to them: only those not told yet make events. */
  messages: readonly BaseMessage[];
  /** The latest model turn's figures (the `turn` channel). */
  turn?: ModelTurn | null;
  /** The pause the thread waits on after the step. */
  pause?: PauseValue;
}

/**
 * The events of one step (design §6), from the state before and after it; pure. Each message
 * not told before (by id, never by position: a resumed stream re-sends the whole state) gives
 * its `assistant_message`, `tool_call`s and `tool_result`, in order; a new pause gives its
 * `loop_interrupt`. The first event of a model reply carries the turn's figures, once.
 */
export function stepEvents(before: StepBefore, after: StepAfter, viewArgs: ArgsView): RunEventBody[] {
  const events: RunEventBody[] = [];
  const told = new Set<string>();
  for (const message of after.messages) {
    if (!message.id || before.messageIds.has(message.id) || told.has(message.id)) continue;
    told.add(message.id);
    events.push(...messageEvents(message, after.turn ?? undefined, viewArgs));
  }
  if (after.pause && after.pause.interruptId !== before.pause?.interruptId)
    events.push({ type: "loop_interrupt", ...after.pause });
  return events;
}

/** The ids of messages, as a `StepBefore` holds them. */
export function messageIdsOf(messages: readonly BaseMessage[]): Set<string> {
  return new Set(messages.map((message) => message.id).filter((id): id is string => !!id));
}

/** `run_started`: a run begins, or a paused one goes on (`resumed`). */
export function runStarted(resumed: boolean): RunEventBody {
  return { type: "run_started", resumed };
}

/** `run_finished`: how the run ended, with what it spent when its state could be read. */
export function runFinished(end: {
  stopReason: StopReason;
  steps: number;
  durationMs: number;
  /** Whether the run had paused for a person. */
  paused: boolean;
  spent?: { tokens: number; costUsd: number };
  /** Why the model call that ended the run failed. */
  modelError?: string;
}): RunEventBody {
  const { stopReason, steps, durationMs, paused, spent, modelError } = end;
  return {
    type: "run_finished",
    stopReason,
    steps,
    durationMs,
    paused,
    ...(spent ? { tokens: spent.tokens, costUsd: spent.costUsd } : {}),
    ...(modelError ? { modelError } : {}),
  };
}

/** The events one message produces, in order; tool-call args pass through `viewArgs`. */
function messageEvents(message: BaseMessage, turn: ModelTurn | undefined, viewArgs: ArgsView): RunEventBody[] {
  const view = toMessageView(message, viewArgs);
  if (!view || view.role === "user") return [];
  if (view.role === "tool") {
    // The view's fields are the event's, in the event's order; only the message's own are left out.
    const { id: _id, role: _role, content: _content, ...result } = view;
    return [{ type: "tool_result", ...result }];
  }
  const events: RunEventBody[] = [];
  if (view.content.trim().length > 0)
    events.push({ type: "assistant_message", messageId: view.id, content: view.content });
  for (const call of view.toolCalls)
    events.push({ type: "tool_call", callId: call.callId, tool: call.tool, args: call.args });
  const model = AIMessage.isInstance(message) ? modelStepOf(message, turn) : undefined;
  // Once per turn, so summing the events' figures never counts a turn twice.
  if (model && events[0]) events[0] = { ...events[0], model } as RunEventBody;
  return events;
}

/**
 * The figures of the turn that wrote `message`: from the `turn` channel, or, in threads
 * checkpointed before it, from what `call_model` then left in the reply's `response_metadata`.
 */
function modelStepOf(message: AIMessage, turn: ModelTurn | undefined): ModelStep | undefined {
  if (turn && turn.messageId === message.id) {
    const { messageId: _messageId, ...step } = turn;
    return step;
  }
  const meta = message.response_metadata?.opspilot as
    { step?: number; latencyMs?: number; costUsd?: number; retries?: number } | undefined;
  if (typeof meta?.step !== "number" || typeof meta.latencyMs !== "number") return undefined;
  return {
    step: meta.step,
    latencyMs: meta.latencyMs,
    inputTokens: message.usage_metadata?.input_tokens ?? 0,
    outputTokens: message.usage_metadata?.output_tokens ?? 0,
    costUsd: meta.costUsd ?? 0,
    ...(typeof meta.retries === "number" && meta.retries > 0 ? { retries: meta.retries } : {}),
  };
}
