import type { Serialized } from "@langchain/core/load/serializable";
import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChainValues } from "@langchain/core/utils/types";
import { GraphCallbackHandler, isCommand, type GraphInterruptEvent, type GraphResumeEvent } from "@langchain/langgraph";
import type { RunEvent, RunEventBody } from "../../contracts/events.js";
import { PauseValueSchema } from "../../contracts/pause/pause.js";
import type { StopReason } from "../../contracts/stop-reasons.js";
import type { AgentStateType } from "../../graph/state.js";
import type { ArgsView } from "./args-view.js";
import { runFinished, runStarted, stepEvents } from "./step-events.js";

/** A graph run being followed: its root's callback run id is the key. */
interface FollowedRun {
  threadId: string;
  runId: string;
  startedAt: number;
  seq: number;
  announced: boolean;
  resumed: boolean;
  interrupted: boolean;
  /** Ids of the messages already in the state or already told. */
  seen: Set<string>;
}

/**
 * The run events of a graph that something else drives (the LangGraph server), from
 * LangGraph's own callbacks: the root run's start and end, each node's output (its new
 * messages become the events `driveRun` would stream) and the lifecycle callbacks of
 * `GraphCallbackHandler` for the pause and the resume. A run is followed only when its config
 * names a thread; its id is the server's `run_id`. Handlers run inline, in order, and
 * a failure in `observe` stays there.
 */
export class GraphRunEvents extends GraphCallbackHandler {
  override name = "opspilot_run_events";
  private readonly runs = new Map<string, FollowedRun>();

  constructor(
    private readonly observe: (event: RunEvent) => void,
    private readonly viewArgs: ArgsView,
  ) {
    super({ _awaitHandler: true, ignoreLLM: true, ignoreAgent: true, ignoreRetriever: true, ignoreCustomEvent: true });
  }

  // The order `CallbackManager` passes them in (and LangChain's own tracers read), not the one its types declare.
  override handleChainStart(
    _chain: Serialized,
    inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    if (parentRunId === undefined) {
      const threadId = metadata?.thread_id;
      if (typeof threadId !== "string") return;
      const serverRunId = typeof metadata?.run_id === "string" ? metadata.run_id : runId;
      this.runs.set(runId, {
        threadId,
        runId: serverRunId,
        startedAt: Date.now(),
        seq: 0,
        announced: false,
        resumed: false,
        interrupted: false,
        seen: new Set(),
      });
      return;
    }
    const run = this.runs.get(parentRunId);
    if (!run) return;
    // A node's input is the state: what it holds was there before, or was told when it was written.
    this.announce(run);
    for (const message of messagesOf(inputs)) if (message.id) run.seen.add(message.id);
  }

  override handleChainEnd(outputs: ChainValues, runId: string, parentRunId?: string): void {
    const root = this.runs.get(runId);
    if (root) return this.finish(runId, root, outputs as Partial<AgentStateType>);
    const run = parentRunId === undefined ? undefined : this.runs.get(parentRunId);
    if (!run) return;
    const update = isCommand(outputs) ? outputs.update : outputs;
    const messages = messagesOf(update);
    const turn = (update as Partial<AgentStateType> | undefined)?.turn;
    for (const body of stepEvents({ messageIds: run.seen }, { messages, turn }, this.viewArgs)) this.tell(run, body);
    for (const message of messages) if (message.id) run.seen.add(message.id);
  }

  override handleChainError(_error: unknown, runId: string): void {
    const root = this.runs.get(runId);
    if (root) this.finish(runId, root, undefined);
  }

  override handleResume(event: GraphResumeEvent): void {
    const run = event.runId === undefined ? undefined : this.runs.get(event.runId);
    if (!run || event.checkpointNs.length > 0) return;
    run.resumed = true;
    this.announce(run);
  }

  override handleInterrupt(event: GraphInterruptEvent): void {
    const run = event.runId === undefined ? undefined : this.runs.get(event.runId);
    if (!run) return;
    this.announce(run);
    const parsed = PauseValueSchema.safeParse(event.interrupts.at(-1)?.value);
    if (!parsed.success) return;
    run.interrupted = true;
    for (const body of stepEvents({ messageIds: run.seen }, { messages: [], pause: parsed.data }, this.viewArgs))
      this.tell(run, body);
  }

  private announce(run: FollowedRun): void {
    if (run.announced) return;
    run.announced = true;
    this.tell(run, runStarted(run.resumed));
  }

  /** The run's end: its final state, or none when it failed (or was cancelled). */
  private finish(key: string, run: FollowedRun, state: Partial<AgentStateType> | undefined): void {
    this.runs.delete(key);
    this.announce(run);
    const stopReason: StopReason = !state
      ? "error"
      : run.interrupted
        ? "interrupted"
        : (state.stop?.reason ?? "final_answer");
    this.tell(
      run,
      runFinished({
        stopReason,
        steps: state?.run?.steps ?? 0,
        durationMs: Date.now() - run.startedAt,
        paused: run.resumed,
        ...(state?.run ? { spent: state.run } : {}),
      }),
    );
  }

  private tell(run: FollowedRun, body: RunEventBody): void {
    run.seq += 1;
    this.observe({ ...body, threadId: run.threadId, runId: run.runId, seq: run.seq } as RunEvent);
  }
}

/** The messages of a state or an update (a list, or one message). */
function messagesOf(values: unknown): BaseMessage[] {
  if (typeof values !== "object" || values === null) return [];
  const messages = (values as { messages?: unknown }).messages;
  if (Array.isArray(messages)) return messages.filter((message) => isBaseMessage(message));
  return isBaseMessage(messages) ? [messages] : [];
}
