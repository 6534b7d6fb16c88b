import { AIMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { readRunOptions, type RunOptions } from "../graph/config.js";
import { SYSTEM_PROMPT, withUnavailableTools } from "../graph/prompt.js";
import type { AgentStateType, AgentStateUpdate, ModelTurn, RunInfo } from "../graph/state.js";
import { InvariantViolationError } from "../contracts/errors.js";
import { checkPairing, pairingHolds } from "../graph/calls/pairing.js";
import { proposedCalls } from "../contracts/calls.js";
import { loopWords } from "../contracts/words/loop-words.js";
import { newRunInfo, runEnd, startsNewRun } from "../graph/run-info.js";
import { repairAbandonedCalls } from "../graph/calls/abandoned-calls.js";
import { recordClosedCalls } from "../graph/calls/closed-calls.js";
import { cancelledStop, modelFailureMessage } from "../graph/stop-message.js";
import { classifyModelFailure } from "../graph/model-failure.js";
import { exposedTools } from "../graph/guard.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Recorder } from "../storage/types.js";
import { threadIdOf, userOf, type CancelSignals } from "../graph/context.js";
import { normalizeModelMessage } from "../models/normalize.js";
import { endpointHostOf } from "../models/providers/model-endpoint.js";
import { invokeWithinWindow } from "../context/context-overflow.js";
import { countingRetries } from "../models/retry-count.js";
import { contextBudgetFor, type ContextBudget } from "../models/context-budget.js";
import { tokenMeter } from "../context/request-tokens.js";
import { loopTurns } from "../graph/turn-queue.js";
import { streamsText, withTextDeltas, type TextDeltaChunk } from "../models/text-deltas.js";

/** What `call_model` needs. */
export interface CallModelDeps {
  model: BaseChatModel;
  registry: ToolRegistry;
  recorder: Recorder;
  cancellations: CancelSignals;
  systemPrompt?: string;
  /** The model's context window and how to count it; the demo model's when omitted. */
  contextBudget?: ContextBudget;
}

/** `call_model`: checks pairing, calls the chat model with the exposed tools, appends its answer. */
export function makeCallModel(deps: CallModelDeps) {
  const budget = deps.contextBudget ?? contextBudgetFor({ model: "demo" });
  const meter = tokenMeter(budget);
  // The registry hands over the same spec objects while the exposed tools stay the same: the model is bound once per set.
  let last: { tools: readonly unknown[]; bound: ReturnType<NonNullable<BaseChatModel["bindTools"]>> } | undefined;
  const bindTools = (tools: readonly unknown[]) => {
    if (last && last.tools.length === tools.length && last.tools.every((tool, i) => tool === tools[i]))
      return last.bound;
    const bound = deps.model.bindTools!(tools as Parameters<NonNullable<BaseChatModel["bindTools"]>>[0]);
    // A model that binds by changing itself (a test double) may be bound elsewhere meanwhile: it is bound every time.
    last = bound === (deps.model as unknown) ? undefined : { tools, bound };
    return bound;
  };
  return async function callModel(state: AgentStateType, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> {
    // One turn (a model call, or another run's superstep) per event-loop iteration, in order: a run whose
    // model and tools never wait on I/O would otherwise hold the loop, and other runs' requests and frames with it.
    await loopTurns.turn();
    const options = readRunOptions(config);
    const threadId = threadIdOf(config);
    const now = Date.now();
    const fresh = startsNewRun(state.messages) || state.run === null;
    const run: RunInfo = fresh
      ? newRunInfo(state.messages, config.configurable?.run_id as string | undefined, now, userOf(options).id)
      : state.run!;
    const reset: AgentStateUpdate = fresh ? { batch: null, stop: null } : {};
    if (fresh)
      await deps.recorder.recordRunStart({
        runId: run.runId,
        threadId,
        userId: userOf(options).id,
        startedAt: run.startedAt,
      });
    const signal = deps.cancellations.signalFor(threadId);
    if (signal.aborted) return { ...reset, run, stop: cancelledStop(run.language) };

    const repair = fresh ? repairAbandonedCalls(state.messages, options.observationMaxChars) : undefined;
    const history = repair?.history ?? state.messages;
    const report = checkPairing(history);
    if (!pairingHolds(report))
      throw new InvariantViolationError(`Pairing violated before a model call: ${JSON.stringify(report)}`);
    const repaired = repair?.update ?? [];
    if (repair) {
      // The abandoned calls belong to the run that proposed them (when its bookkeeping survived); each gets its record.
      await recordClosedCalls(deps.recorder, {
        runId: state.run?.runId ?? run.runId,
        threadId,
        history: state.messages,
        closing: repair.update,
        batch: state.batch,
      });
    }

    const step = run.steps + 1;
    // A tool whose server is down is not offered this step; the prompt says so, so the model can tell the user.
    const exposed = exposedTools(options, step, deps.registry).filter((name) => deps.registry.isAvailable(name));
    const tools = deps.registry.specs(exposed);
    const bound = bindTools(tools);
    // With the "custom" stream mode on, the reply's text reaches the stream while the model writes it.
    const writer = config.writer;
    const invocable =
      writer && streamsText(deps.model)
        ? withTextDeltas(bound, (text) => writer({ type: "assistant_delta", step, text } satisfies TextDeltaChunk))
        : bound;
    const prompt = withUnavailableTools(deps.systemPrompt ?? SYSTEM_PROMPT, deps.registry.unavailable());
    const started = performance.now();
    let response: AIMessage;
    let retries = 0;
    try {
      // Every request fits the window (design §2.10); the history in the state stays whole.
      const parts = { systemPrompt: prompt, tools, history, memory: state.memory };
      const counted = await countingRetries(() => invokeWithinWindow(invocable, parts, { budget, meter, signal }));
      const { raw, request } = counted.value;
      retries = counted.retries;
      // Merged memory is carried by every return below.
      if (request.memory) reset.memory = { replace: request.memory };
      // The reply as it came (a chunk keeps the raw streamed arguments that reveal a cut-off call).
      response = normalizeModelMessage(raw as AIMessage, { usedIds: usedIds(history) });
    } catch (error) {
      if (isGraphBubbleUp(error)) throw error;
      if (signal.aborted) return { ...reset, messages: repaired, run, stop: cancelledStop(run.language) };
      const failed = modelFailureMessage(error, run.language);
      const modelFailure = classifyModelFailure(error, endpointHostOf(deps.model));
      await deps.recorder.recordRunEnd({ ...runEnd({ ...run, steps: step }, "error"), modelError: modelFailure });
      return {
        ...reset,
        messages: [...repaired, failed],
        run: { ...run, steps: step, lastActiveAt: Date.now() },
        stop: { reason: "error", detail: String(failed.content), modelFailure },
      };
    }
    const latencyMs = Math.round(performance.now() - started);
    const usage = response.usage_metadata;
    const inputTokens = usage?.input_tokens ?? 0;
    const outputTokens = usage?.output_tokens ?? 0;
    const calls = proposedCalls(response);
    const stepCostUsd = cost(options, inputTokens, outputTokens);
    const updated: RunInfo = {
      ...run,
      steps: step,
      lastActiveAt: Date.now(),
      tokens: run.tokens + inputTokens + outputTokens,
      costUsd: run.costUsd + stepCostUsd,
    };
    // The step's figures reach the events (and through them the metrics) from this channel, beside the reply.
    const turn: ModelTurn = {
      messageId: response.id!,
      step,
      latencyMs,
      inputTokens,
      outputTokens,
      costUsd: stepCostUsd,
      ...(retries > 0 ? { retries } : {}),
    };
    await deps.recorder.recordStep({
      runId: run.runId,
      step,
      latencyMs,
      inputTokens,
      outputTokens,
      toolCalls: calls.length,
      costUsd: stepCostUsd,
    });
    if (calls.length > 0) return { ...reset, messages: [...repaired, response], run: updated, turn };
    await deps.recorder.recordRunEnd(runEnd(updated, "final_answer"));
    const answer =
      response.content === "" || (Array.isArray(response.content) && response.content.length === 0)
        ? emptyAnswer(response, run)
        : response;
    return {
      ...reset,
      messages: [...repaired, answer],
      run: updated,
      turn,
      stop: { reason: "final_answer", detail: "" },
    };
  };
}

/** Message ids and call ids already in the thread: a reused one would replace or orphan history. */
function usedIds(messages: AgentStateType["messages"]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.id) ids.add(message.id);
    for (const call of proposedCalls(message)) ids.add(call.id);
  }
  return ids;
}

function cost(options: RunOptions, inputTokens: number, outputTokens: number): number {
  return (inputTokens * options.inputPricePerMillion + outputTokens * options.outputPricePerMillion) / 1_000_000;
}

function emptyAnswer(response: AIMessage, run: RunInfo): AIMessage {
  return new AIMessage({
    id: response.id,
    content: loopWords(run.language).model.emptyReply,
    response_metadata: response.response_metadata,
    usage_metadata: response.usage_metadata,
  });
}
