import { z } from "zod";
import type { ModelFailure } from "./model-failure.js";
import { Annotation, MessagesZodMeta, type Messages } from "@langchain/langgraph";
import { registry } from "@langchain/langgraph/zod";
import type { Language } from "../contracts/language.js";
import type { StopReason } from "../contracts/stop-reasons.js";
import type { PlannedCall } from "../contracts/calls.js";
import { applyMemoryUpdate, emptyMemory, type MemoryUpdate, type WorkingMemory } from "../context/memory.js";
import { foldedChannel, messagesChannel, threadMessagesReducer } from "./delta-state.js";
import type { BaseMessage } from "@langchain/core/messages";
import type { ModelStep } from "../contracts/events.js";

/** Bookkeeping of the current run; reset when a new user message starts a run. */
export interface RunInfo {
  /** Id of the run (records, events). */
  runId: string;
  /** Epoch ms the active clock started; moved forward over pauses so waiting is not counted. */
  startedAt: number;
  /** Epoch ms of the last node that did work; lets a resume exclude the pause from the wall time. */
  lastActiveAt: number;
  /** Model turns so far in this run. */
  steps: number;
  /** Consecutive steps in which every call failed (rejections, cancels and skips do not count). */
  failsInRow: number;
  /** Pauses for an approval so far in this run (absent in runs checkpointed before it was counted). */
  approvalPauses?: number;
  /** Fingerprints of the last few steps' calls, newest last (loop detection). */
  recentSteps: string[];
  /** Tokens spent by this run. */
  tokens: number;
  /** Dollars spent by this run, from the configured prices. */
  costUsd: number;
  /** Cost units spent by tools that declare `costUnits` (absent until one does, and in older checkpoints). */
  toolCostUnits?: number;
  /** Language of the user's message, for the messages the loop writes itself. */
  language: Language;
  /** Whether this run was resumed from a pause at least once. */
  resumed: boolean;
  /** Id of the user whose message started the run (absent in runs checkpointed before it was kept). */
  requestedBy?: string;
}

/** The batch of calls of the latest model turn. */
export interface Batch {
  /** Step the batch belongs to. */
  step: number;
  /** The calls, in the model's order. */
  calls: PlannedCall[];
  /** Why the last answer to this batch's pause was refused; the next pause shows it. */
  refusal?: string;
}

/** Why the run stopped, when a limit, a cancel or an error stopped it. */
export interface StopInfo {
  /** Stop reason of design §5. */
  reason: StopReason;
  /** One sentence for the final message. */
  detail: string;
  /** Why the model call failed, when a failed model call stopped the run. */
  modelFailure?: ModelFailure;
}

/** The figures of the latest model turn, and the reply they belong to (its events carry them as `model`). */
export interface ModelTurn extends ModelStep {
  /** Id of the assistant message the turn wrote. */
  messageId: string;
}

const latest = <T>(_value: T, write: T) => write;
const lastValue = <T>(initial: () => T) => Annotation<T>({ reducer: latest, default: initial });

/**
 * The graph state. With `delta` (the default, when the history is kept) `messages`, `memory`,
 * `run` and `batch` are delta channels (contracts/checkpoints.ts): a checkpoint stores the step's
 * writes to them and a full copy every 100 updates. Without it (only the latest checkpoint is
 * kept) every checkpoint stores them whole, so compaction can drop all the ones before it.
 * The reducers are the same either way, and LangGraph reads a thread written one way with the
 * other, so switching `OPSPILOT_CHECKPOINTS` loses nothing.
 */
export function agentState(options: { delta?: boolean } = {}) {
  const delta = options.delta ?? true;
  const channel = <Value, Update>(update: (value: Value, write: Update) => Value, initial: () => Value) =>
    delta
      ? foldedChannel<Value, Update>(update, initial)
      : Annotation<Value, Update>({ reducer: update, default: initial });
  return Annotation.Root({
    /** Conversation: user, assistant and tool messages, in order. */
    messages: delta
      ? messagesChannel()
      : Annotation<BaseMessage[], Messages>({
          reducer: (left, right) => threadMessagesReducer(left, [right]),
          default: () => [],
        }),
    /** Counters and clock of the current run (every node writes it). */
    run: channel<RunInfo | null, RunInfo | null>(latest, () => null),
    /** Calls of the latest model turn and their status. */
    batch: channel<Batch | null, Batch | null>(latest, () => null),
    /** Set when the run stops on a limit, a cancel or an error. */
    stop: lastValue<StopInfo | null>(() => null),
    /**
     * The latest model turn's figures (latency, tokens, cost, retries), for the events of its
     * reply; absent in checkpoints written before it, whose replies carried them in `response_metadata`.
     */
    turn: lastValue<ModelTurn | null>(() => null),
    /** Working memory: a compact entry per finished call, merged when it outgrows its share of the window (design §2.10). */
    memory: channel<WorkingMemory, MemoryUpdate>(applyMemoryUpdate, emptyMemory),
  });
}

/** The graph state as it keeps the history (the default). */
export const AgentState = agentState();

/** Graph state. */
export type AgentStateType = typeof AgentState.State;
/** Partial update a node returns. */
export type AgentStateUpdate = typeof AgentState.Update;

/**
 * What callers send to start a run: just the new messages. A zod object (not an Annotation)
 * so the LangGraph server can publish it as the input schema Studio draws its form from. It
 * carries LangGraph's messages hint for Studio's chat form but no reducer of its own: the
 * state's `messages` channel applies the writes.
 */
export const AgentInput = z.object({
  /** The user's new message(s). */
  messages: z
    .array(z.any())
    .describe('The user\'s new message(s), e.g. [{ role: "user", content: "..." }]')
    .register(registry, { jsonSchemaExtra: MessagesZodMeta.jsonSchemaExtra }),
});
