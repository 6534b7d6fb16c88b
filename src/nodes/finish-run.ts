import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { readRunOptions } from "../graph/config.js";
import type { AgentStateType, AgentStateUpdate } from "../graph/state.js";
import type { ObservationMeta } from "../contracts/observation.js";
import { unansweredCalls } from "../graph/pairing.js";
import { stopSummary, type Finding } from "../graph/stop-message.js";
import { notExecuted } from "../execution/tool-message.js";
import type { Recorder } from "../storage/types.js";

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
    const errorCode = stop.reason === "cancelled" ? "cancelled" : "skipped";
    const results = notExecuted(
      unansweredCalls(state.messages),
      { errorCode, message: `Not executed: ${stop.detail}` },
      options.observationMaxChars,
    );
    const summary = stopSummary({
      reason: stop.reason,
      detail: stop.detail,
      language: run.language,
      findings: findingsOfRun(state.messages),
    });
    await deps.recorder.recordRunEnd({
      runId: run.runId,
      stopReason: stop.reason,
      steps: run.steps,
      durationMs: Date.now() - run.startedAt,
      resumed: run.resumed,
    });
    return { messages: [...results, summary], batch: null };
  };
}

function findingsOfRun(messages: readonly BaseMessage[]): Finding[] {
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (HumanMessage.isInstance(messages[i])) {
      start = i;
      break;
    }
  }
  return messages
    .slice(start)
    .filter((message): message is ToolMessage => ToolMessage.isInstance(message))
    .map((message) => ({ tool: message.name ?? "tool", meta: message.artifact as ObservationMeta | undefined }))
    .filter((entry) => entry.meta?.ok)
    .map((entry) => ({ tool: entry.tool, summary: entry.meta!.summary }));
}
