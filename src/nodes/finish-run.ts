import type { RunnableConfig } from "@langchain/core/runnables";
import { readRunOptions } from "../graph/config.js";
import type { AgentStateType, AgentStateUpdate } from "../graph/state.js";
import { runEnd } from "../graph/run-info.js";
import { stopWithAnswer } from "../graph/stop-message.js";
import type { Recorder } from "../storage/types.js";
import { recordClosedCalls } from "../graph/calls/closed-calls.js";
import { threadIdOf } from "../graph/context.js";

/**
 * `finish_run`: ends a run stopped by a limit or a cancel. Pairs every unanswered call id
 * with a "not executed" observation and writes an answer that says, in the user's
 * language, what was found so far and why the run stopped.
 */
export function makeFinishRun(deps: { recorder: Recorder }) {
  return async function finishRun(state: AgentStateType, config: RunnableConfig): Promise<AgentStateUpdate> {
    const options = readRunOptions(config);
    const run = state.run!;
    const stop = state.stop!;
    const messages = stopWithAnswer({
      messages: state.messages,
      stop,
      language: run.language,
      maxChars: options.observationMaxChars,
    });
    await recordClosedCalls(deps.recorder, {
      runId: run.runId,
      threadId: threadIdOf(config),
      history: state.messages,
      closing: messages,
      batch: state.batch,
    });
    await deps.recorder.recordRunEnd(runEnd(run, stop.reason));
    return { messages, batch: null };
  };
}
