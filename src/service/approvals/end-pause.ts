import { loopWords } from "../../contracts/words/loop-words.js";
import type { OpsPilotGraph } from "../../agent/graph.js";
import type { AgentStateType } from "../../graph/state.js";
import type { Storage } from "../../storage/types.js";
import type { RunEvent, RunEventBody } from "../../contracts/events.js";
import { DEFAULT_OBSERVATION_MAX_CHARS } from "../../graph/config.js";
import { tryLease } from "../runtime/lease.js";
import { stopWithAnswer } from "../../graph/stop-message.js";
import { recordClosedCalls } from "../../graph/calls/closed-calls.js";
import { runEnd } from "../../graph/run-info.js";
import { runFinished, runStarted, stepEvents } from "../events/step-events.js";
import { readThread } from "../runtime/read-thread.js";
import type { ArgsView } from "../events/args-view.js";

/**
 * Stops a run that waits for the user, as `finish_run` would: every waiting call gets a
 * `cancelled` result, an answer says the run was stopped, and the run ends with stop reason
 * `cancelled` — without asking the model again. False when the thread is not paused or is busy.
 */
export async function endPause(options: {
  graph: OpsPilotGraph;
  storage: Storage;
  threadId: string;
  /** How tool-call args appear in events: validated and masked. */
  viewArgs: ArgsView;
  onEvent?: (event: RunEvent) => void;
}): Promise<boolean> {
  const { graph, storage, threadId } = options;
  const lease = await tryLease(storage, threadId);
  if (!lease) return false;
  try {
    const config = { configurable: { thread_id: threadId } };
    const { values: state, pause } = await readThread(graph, threadId);
    if (!pause || !state.run) return false;
    const run = state.run;
    const stop = {
      reason: "cancelled" as const,
      detail: loopWords(run.language).pause.stoppedWhileWaiting,
    };
    // In a pause, the calls without a result are exactly the waiting ones.
    const messages = stopWithAnswer({
      messages: state.messages,
      stop,
      language: run.language,
      maxChars: DEFAULT_OBSERVATION_MAX_CHARS,
    });
    await graph.updateState(config, { messages, batch: null, stop }, "finish_run");
    await recordClosedCalls(storage, {
      runId: run.runId,
      threadId,
      history: state.messages,
      closing: messages,
      batch: state.batch,
    });
    await recordCancelledPause({ ...options, run, closing: messages });
    return true;
  } finally {
    await lease.release();
  }
}

/**
 * Records the end of a run closed while it waited: its resumed start, the events of the
 * messages that close it, the run's end and `run_finished` with stop reason `cancelled`.
 */
export async function recordCancelledPause(options: {
  storage: Storage;
  threadId: string;
  run: NonNullable<AgentStateType["run"]>;
  /** The messages that closed the pause: the waiting calls' results and the stop's answer. */
  closing: AgentStateType["messages"];
  viewArgs: ArgsView;
  onEvent?: (event: RunEvent) => void;
}): Promise<void> {
  const { storage, threadId, run } = options;
  const bodies: RunEventBody[] = [
    runStarted(true),
    ...stepEvents({ messageIds: new Set() }, { messages: options.closing }, options.viewArgs),
  ];
  for (const event of await storage.appendEvents(threadId, run.runId, bodies)) options.onEvent?.(event);
  // The run's active time: the wait for the user is not the run's.
  const end = runEnd(run, "cancelled", run.lastActiveAt);
  await storage.recordRunEnd(end);
  const finished = runFinished({
    stopReason: "cancelled",
    steps: run.steps,
    durationMs: end.durationMs,
    paused: true,
    spent: run,
  });
  for (const event of await storage.appendEvents(threadId, run.runId, [finished])) options.onEvent?.(event);
}
