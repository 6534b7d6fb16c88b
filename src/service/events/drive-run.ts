import { loopWords } from "../../contracts/words/loop-words.js";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Command, INTERRUPT } from "@langchain/langgraph";
import type { OpsPilotGraph } from "../../agent/graph.js";
import type { AgentStateType } from "../../graph/state.js";
import type { Storage } from "../../storage/types.js";
import type { RunEventBody, StreamEvent } from "../../contracts/events.js";
import type { EventChannel } from "./event-channel.js";
import { runFinished, runStarted, stepEvents } from "./step-events.js";
import { readThread } from "../runtime/read-thread.js";
import type { ArgsView } from "./args-view.js";
import { stopWithAnswer } from "../../graph/stop-message.js";
import { unansweredCalls } from "../../graph/calls/pairing.js";
import { journaledResults } from "../../execution/write-journal.js";
import { recordClosedCalls } from "../../graph/calls/closed-calls.js";
import { runEnd } from "../../graph/run-info.js";
import { DEFAULT_OBSERVATION_MAX_CHARS } from "../../graph/config.js";
import type { StopReason } from "../../contracts/stop-reasons.js";
import type { Logger } from "../observability/logger.js";
import { modelFailureLine, type ModelFailure } from "../../graph/model-failure.js";
import { isTextDeltaChunk } from "../../models/text-deltas.js";
import type { PauseEvent } from "../notices/pause-webhook-body.js";
import type { RunHandoff } from "../runtime/handoff.js";

/** One run (or resume) to drive to its end. */
export interface DriveOptions {
  graph: OpsPilotGraph;
  storage: Storage;
  threadId: string;
  runId: string;
  /** New messages, a resume command, or null to continue from the last checkpoint. */
  input: { messages: BaseMessage[] } | Command | null;
  config: RunnableConfig;
  /** Receives the recorded events and, between them, the unrecorded answer fragments. */
  channel: EventChannel<StreamEvent>;
  /** Ids of messages already in the thread, so only new ones become events. */
  seen: Set<string>;
  /** Receives unexpected failures. */
  logger: Logger;
  /** How tool-call args appear in events: validated and masked. */
  viewArgs: ArgsView;
  /** Told of each pause once it is recorded; must return at once (notices are sent in the background). */
  onPause?: (event: PauseEvent) => void;
  /** Runs before `run_finished` is sent (releases the thread), so a client may start the next run at once. */
  beforeFinish: () => Promise<void>;
  /** Keep the thread's older checkpoints (true), or drop them once the run ends or pauses. */
  keepHistory: boolean;
  /** Stops the run at its next checkpoint when asked (shutdown), for another process to recover. */
  handoff?: RunHandoff;
  /** Records a hand-over durably, for the process that takes the thread over; must not throw. */
  onHandedOver?: () => Promise<void>;
}

/**
 * Streams the graph with `streamMode: "values"` and turns each new message (by id, since
 * a resumed stream re-sends the whole state) into events, recorded before they are pushed.
 * The "custom" mode carries the text a model writes, pushed as `assistant_delta` and never
 * recorded: the complete `assistant_message` from the values supersedes it.
 * Ends with `run_finished`, and an unexpected error becomes a readable answer, unless the run was
 * handed over at a checkpoint (undefined): then the thread is left unfinished for another process.
 */
export async function driveRun(options: DriveOptions): Promise<StopReason | undefined> {
  const { graph, storage, threadId, runId, channel, seen } = options;
  const started = Date.now();
  const emit = async (body: RunEventBody) => {
    const event = await storage.appendEvent(threadId, runId, body);
    channel.push(event);
    return event;
  };
  // The events of a step's change, appended together (one round trip on PostgreSQL); true when there were any.
  const emitStep = async (after: Parameters<typeof stepEvents>[1]) => {
    const bodies = stepEvents({ messageIds: seen }, after, options.viewArgs);
    for (const message of after.messages) if (message.id) seen.add(message.id);
    if (bodies.length > 0) for (const event of await storage.appendEvents(threadId, runId, bodies)) channel.push(event);
    return bodies.length > 0;
  };
  // A resume continues the same logical run: metrics must not count it as another one.
  const resuming = options.input instanceof Command;
  // A new message is announced only once a checkpoint holds it, as the run's input (the run's first checkpoint)
  // or in the thread: a process killed before that leaves no trace of the run, never a run_started whose
  // message was lost; one killed after it is recovered from the input.
  const newMessageId = newMessageIdOf(options.input);
  let announcing: Promise<unknown> | undefined;
  const announceOnce = () => (announcing ??= emit(runStarted(resuming)));
  const announce = async () => {
    if (announcing) return announcing;
    // The wait is best effort: a state that cannot be read is the run's error to report, not this one's.
    if (newMessageId) await untilCheckpointed(graph, threadId, newMessageId).catch(() => undefined);
    return announceOnce();
  };
  if (!newMessageId) await announce();
  let stopReason: StopReason;
  let steps = 0;
  let resumed = resuming;
  // Unknown when the run failed before its state could be read: the records keep what they had.
  let spent: { tokens: number; costUsd: number; toolCostUnits?: number } | undefined;
  let modelFailure: ModelFailure | undefined;
  // The state after the last step, as streamed once its checkpoint was saved; none after a pause (read from the saver).
  let last: Partial<AgentStateType> | undefined;
  try {
    const stream = await graph.stream(options.input as Parameters<OpsPilotGraph["stream"]>[0], {
      ...options.config,
      streamMode: ["values", "custom"],
      // Each checkpoint is on disk before the next step starts, so a process killed mid-step
      // is recovered from the step it was in, never from an older one (writes are journaled either way).
      durability: "sync",
      interruptBefore: options.handoff?.interruptBefore,
    });
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      await announce();
      if (mode === "custom") {
        if (isTextDeltaChunk(chunk))
          channel.push({ type: "assistant_delta", threadId, runId, step: chunk.step, text: chunk.text });
        continue;
      }
      const values = chunk as Partial<AgentStateType>;
      last = INTERRUPT in values ? undefined : values;
      // A model or tool that never waits on I/O would keep the event loop busy until the run
      // ends; yielding lets each step's frames reach the client as it happens.
      if (await emitStep({ messages: values.messages ?? [], turn: values.turn }))
        await new Promise((resolve) => setImmediate(resolve));
    }
    await announce();
    // A pause is read back from the saved checkpoint (see pendingInterrupt); a run that stopped streamed its final
    // state, with the stop, once that state's checkpoint was saved (durability "sync").
    const stopped = last?.stop && last.run?.runId === runId;
    const snapshot = stopped ? undefined : await readThread(graph, threadId);
    if (snapshot?.standing.kind === "unfinished" && options.handoff?.requested) {
      // Recorded before the thread's lease is released, so whoever then takes the thread finds it.
      await options.onHandedOver?.();
      await options.beforeFinish();
      return undefined;
    }
    const state = last ?? snapshot!.values;
    steps = state.run?.steps ?? 0;
    resumed = resuming || (state.run?.resumed ?? false);
    spent = {
      tokens: state.run?.tokens ?? 0,
      costUsd: state.run?.costUsd ?? 0,
      ...(state.run?.toolCostUnits !== undefined ? { toolCostUnits: state.run.toolCostUnits } : {}),
    };
    const pause = snapshot?.pause;
    if (pause) {
      const [body] = stepEvents({ messageIds: seen }, { messages: [], pause }, options.viewArgs);
      const event = await emit(body!);
      if (event.type === "loop_interrupt") notifyPause(options, event);
      stopReason = "interrupted";
    } else stopReason = state.stop?.reason ?? "final_answer";
    modelFailure = state.stop?.modelFailure;
  } catch (error) {
    stopReason = "error";
    // This process is alive: the run is announced so its error answer has a run to belong to.
    if (announcing) await announcing.catch(() => undefined);
    else await announceOnce();
    await emitStep({ messages: await recoverFromError(options, error) });
  }
  const durationMs = Date.now() - started;
  if (stopReason === "interrupted" || stopReason === "error") {
    await storage.recordRunEnd(
      runEnd({ runId, steps, startedAt: started, resumed, ...spent }, stopReason, started + durationMs),
    );
  }
  // Still under the lease: where history is not kept, the run's superseded checkpoints go, the latest (and any pause in it) stays.
  if (!options.keepHistory)
    await storage
      .compactThread(threadId)
      .catch((error: unknown) => options.logger.error(`could not compact thread ${threadId}`, error));
  await options.beforeFinish();
  if (modelFailure) options.logger.warn?.(modelFailureLine(options, modelFailure));
  const modelError = modelFailure?.reason;
  await emit(runFinished({ stopReason, steps, durationMs, paused: resumed, ...(spent ? { spent } : {}), modelError }));
  return stopReason;
}

/**
 * After an unexpected error: pairs the unanswered calls and appends a readable answer to
 * the thread, so the next message runs normally. Internal details stay in the log.
 */
async function recoverFromError(options: DriveOptions, error: unknown): Promise<BaseMessage[]> {
  options.logger.error(`run ${options.runId} on thread ${options.threadId} failed`, error);
  const snapshot = await readThread(options.graph, options.threadId).catch(() => undefined);
  const state = snapshot?.values;
  const messages = state?.messages ?? [];
  const language = state?.run?.language ?? "en";
  const stop = { reason: "error" as const, detail: loopWords(language).runFailed };
  const journaled = await journaledResults({
    journal: options.storage,
    threadId: options.threadId,
    calls: unansweredCalls(messages),
    maxChars: DEFAULT_OBSERVATION_MAX_CHARS,
  });
  const closing = stopWithAnswer({
    messages: [...messages, ...journaled],
    stop,
    language,
    maxChars: DEFAULT_OBSERVATION_MAX_CHARS,
  });
  const repairs = [...journaled, ...closing];
  if (snapshot) {
    await options.graph
      .updateState(options.config, { messages: repairs, batch: null, stop }, "finish_run")
      .catch((updateError: unknown) => options.logger.error("could not record the error answer", updateError));
    await recordClosedCalls(options.storage, {
      runId: state?.run?.runId ?? options.runId,
      threadId: options.threadId,
      history: messages,
      closing: repairs,
      batch: state?.batch ?? null,
    }).catch((recordError: unknown) => options.logger.error("could not record the closed calls", recordError));
  }
  return repairs;
}

/** Hands a recorded pause to the notifier; a notifier that throws is logged and never fails the run. */
function notifyPause(options: DriveOptions, event: PauseEvent): void {
  try {
    options.onPause?.(event);
  } catch (error) {
    options.logger.error("the pause notifier failed", error);
  }
}

/** The id of the user's message a run starts from, when its input is a new message. */
function newMessageIdOf(input: DriveOptions["input"]): string | undefined {
  if (input === null || input instanceof Command) return undefined;
  return input.messages.at(-1)?.id;
}

/** How long a run waits for its input checkpoint before it announces itself anyway. */
const INPUT_CHECKPOINT_WAIT_MS = 5_000;

/**
 * Waits until the thread's checkpoint holds the message. LangGraph writes the input
 * checkpoint without waiting for it; until it is written, a crash would lose the message.
 */
async function untilCheckpointed(graph: OpsPilotGraph, threadId: string, messageId: string): Promise<void> {
  const deadline = Date.now() + INPUT_CHECKPOINT_WAIT_MS;
  for (;;) {
    const { values } = await readThread(graph, threadId);
    if (values.messages.some((message) => message.id === messageId) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
