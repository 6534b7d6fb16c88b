import { loopWords } from "../../contracts/words/loop-words.js";
import type { OpsPilotGraph } from "../../agent/graph.js";
import type { Storage } from "../../storage/types.js";
import type { RunEvent } from "../../contracts/events.js";
import type { RunUser } from "../../contracts/user.js";
import { DEFAULT_OBSERVATION_MAX_CHARS } from "../../graph/config.js";
import { stopWithAnswer } from "../../graph/stop-message.js";
import { recordClosedCalls } from "../../graph/calls/closed-calls.js";
import { rejectionMessage, waitingCalls } from "../../graph/pause.js";
import type { ThreadSnapshot } from "../runtime/read-thread.js";
import { toolMessage } from "../../execution/tool-message.js";
import { recordCancelledPause } from "./end-pause.js";
import type { ArgsView } from "../events/args-view.js";
import { SUPERSEDED_MESSAGE } from "../runtime/multitask-strategy.js";

/** A pause to close because a new message came instead of an answer. */
export interface SupersedeOptions {
  graph: OpsPilotGraph;
  storage: Storage;
  threadId: string;
  /** The thread's state, read under the lease the caller holds. */
  thread: ThreadSnapshot;
  /** Who sent the new message: the rejections are recorded as their decisions. */
  user: RunUser;
  /** How tool-call args appear in events: validated and masked. */
  viewArgs: ArgsView;
  onEvent?: (event: RunEvent) => void;
}

/**
 * Closes the pause the thread waits on, under the caller's lease: every waiting call is answered
 * `rejected_by_user` ("superseded by a new message", decided by the sender), any other call of
 * the batch still without a result gets `cancelled`, an answer ends the run with stop reason
 * `cancelled`, and the run's events are recorded. The model is not asked. False when no pause waits.
 */
export async function supersedePause(options: SupersedeOptions): Promise<boolean> {
  const { graph, storage, threadId, thread, user } = options;
  const { values: state, pause } = thread;
  if (!pause || !state.run) return false;
  const run = state.run;
  const waiting = waitingCalls(state.batch);
  const rejected = waiting.map((call) =>
    toolMessage({
      callId: call.callId,
      tool: call.tool,
      observation: {
        ok: false,
        errorCode: "rejected_by_user",
        message: rejectionMessage(call.tool, SUPERSEDED_MESSAGE, run.language),
      },
      durationMs: 0,
      attempts: 0,
      maxChars: DEFAULT_OBSERVATION_MAX_CHARS,
      decision: { action: "reject", userId: user.id, message: SUPERSEDED_MESSAGE, argsBefore: call.args },
    }),
  );
  const stop = {
    reason: "cancelled" as const,
    detail: loopWords(run.language).pause.superseded,
  };
  const closing = [
    ...rejected,
    ...stopWithAnswer({
      messages: [...state.messages, ...rejected],
      stop,
      language: run.language,
      maxChars: DEFAULT_OBSERVATION_MAX_CHARS,
    }),
  ];
  await graph.updateState(
    { configurable: { thread_id: threadId } },
    { messages: closing, batch: null, stop },
    "finish_run",
  );
  for (const call of waiting) {
    await storage.recordDecision({
      threadId,
      callId: call.callId,
      interruptId: pause.interruptId,
      action: "reject",
      userId: user.id,
      role: user.role,
      argsHashBefore: call.argsHash,
      message: SUPERSEDED_MESSAGE,
    });
  }
  await recordClosedCalls(storage, {
    runId: run.runId,
    threadId,
    history: state.messages,
    closing,
    batch: state.batch,
  });
  await recordCancelledPause({ ...options, run, closing });
  return true;
}
