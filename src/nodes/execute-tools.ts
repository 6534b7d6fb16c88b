import type { ToolMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { readRunOptions } from "../graph/config.js";
import { threadIdOf, userOf, type CancelSignals } from "../graph/context.js";
import { type AgentStateType, type AgentStateUpdate } from "../graph/state.js";
import { callBase, type PlannedCall } from "../contracts/calls.js";
import { notAllowed } from "../graph/calls/validation.js";
import type { CallOutcome } from "../execution/call-tool.js";
import { runGoverned } from "../execution/governed-call.js";
import { ToolRateLimits } from "../execution/tool-rate-limits.js";
import { toolMessage } from "../execution/tool-message.js";
import { maskValue } from "../execution/sanitize.js";
import { summarizeArgs } from "../execution/args-summary.js";
import { cancelledStop } from "../graph/stop-message.js";
import { failedStepsAfter, stepResults } from "../graph/guard.js";
import type { ErrorCode } from "../contracts/observation.js";
import { ERROR_CLASSES } from "../contracts/error-codes.js";
import { roleAllows, type ToolRegistry } from "../tools/registry.js";
import type { CallRecordOutcome, Storage } from "../storage/types.js";
import { memoryEntry, type MemoryEntry } from "../context/memory.js";
import { currentTurnOf } from "../context/turns.js";
import { spentCostUnits } from "../execution/tool-cost.js";
import { runPreviews } from "../graph/calls/previews.js";

/** What `execute_tools` needs. */
export interface ExecuteToolsDeps {
  registry: ToolRegistry;
  storage: Storage;
  cancellations: CancelSignals;
  /** The `rateLimit` budgets every run draws from (this process's memory when omitted). */
  rateLimits?: ToolRateLimits;
}

/**
 * `execute_tools`: runs the batch's ready calls — reads in parallel, then writes one at a
 * time in the model's order — and writes exactly one ToolMessage per finished call. Calls
 * that ask for the user mid-run stay waiting; the others are written before the pause.
 */
export function makeExecuteTools(deps: ExecuteToolsDeps) {
  const limits = deps.rateLimits ?? new ToolRateLimits();
  return async function executeTools(
    state: AgentStateType,
    config: LangGraphRunnableConfig,
  ): Promise<AgentStateUpdate> {
    const options = readRunOptions(config);
    const threadId = threadIdOf(config);
    const user = userOf(options);
    const run = state.run!;
    const signal = deps.cancellations.signalFor(threadId);
    const contextFor = (call: PlannedCall) => ({
      threadId,
      callId: call.callId,
      idempotencyKey: `${threadId}:${call.callId}`,
      user,
      ...(call.decision && call.decision.action !== "reject" ? { approvedBy: call.decision.userId } : {}),
      observationMaxChars: options.observationMaxChars,
    });
    // The dry runs of the calls that wait for approval, so the pause that follows shows them.
    const batch = await runPreviews(state.batch!, deps.registry, contextFor, signal);
    const notRun = (errorCode: ErrorCode, message: string): Promise<CallOutcome> =>
      Promise.resolve({
        kind: "observation",
        observation: { ok: false, errorCode, message },
        raw: undefined,
        durationMs: 0,
        attempts: 0,
      });
    const execute = (call: PlannedCall): Promise<CallOutcome> => {
      if (call.status === "failed") return notRun(call.failure.errorCode, call.failure.message);
      const tool = deps.registry.get(call.tool);
      if (!tool) return notRun("unknown_tool", `There is no tool named "${call.tool}".`);
      // Checked again where the call acts (design §2.9): whoever continues the run may hold another role than who asked.
      if (!roleAllows(tool, user.role)) return notRun("permission_denied", notAllowed(user.role, tool.name));
      return runGoverned({
        call,
        tool,
        context: contextFor(call),
        signal,
        journal: deps.storage,
        registry: deps.registry,
        limits,
      });
    };

    const due = batch.calls.filter((call) => call.status === "ready" || call.status === "failed");
    const toolOfCall = new Map(due.map((call) => [call.callId, call.tool]));
    const outcomes = new Map<string, CallOutcome>();
    const reads = due.filter((call) => call.status === "failed" || call.readOnly);
    await Promise.all(reads.map(async (call) => outcomes.set(call.callId, await execute(call))));
    for (const call of due.filter((c) => !reads.includes(c))) outcomes.set(call.callId, await execute(call));

    const messages: ToolMessage[] = [];
    // Masked once: the message's data, the stored result and the memory's facts all come from it.
    const masked = new Map<string, unknown>();
    // And written once: the JSON text of a stored result that is the message's data too.
    const maskedJson = new Map<string, string>();
    const remembered: MemoryEntry[] = [];
    const turn = currentTurnOf(state.messages);
    const calls = batch.calls.map((call): PlannedCall => {
      const outcome = outcomes.get(call.callId);
      if (!outcome) return call;
      if (outcome.kind === "needs_user") {
        return {
          ...callBase(call),
          status: "needs_params",
          missing: outcome.request.missing.map(({ name, description, enum: values }) => ({
            name,
            description,
            ...(values ? { enum: [...values] } : {}),
          })),
          reason: outcome.request.reason,
        };
      }
      const { observation } = outcome;
      // The data the model reads and the raw result stored are usually the same value: masked once for both.
      const maskedData = observation.ok ? maskValue(observation.data) : undefined;
      const dataJson = observation.ok ? (JSON.stringify(maskedData) as string | undefined) : undefined;
      const rawIsData = observation.ok && outcome.raw === observation.data;
      if (observation.ok) masked.set(call.callId, rawIsData ? maskedData : maskValue(outcome.raw));
      if (rawIsData && dataJson !== undefined) maskedJson.set(call.callId, dataJson);
      remembered.push(
        memoryEntry({
          turn,
          step: batch.step,
          callId: call.callId,
          tool: deps.registry.get(call.tool),
          toolName: call.tool,
          args: call.args,
          outcome: observation.ok
            ? { ok: true, result: masked.get(call.callId), json: maskedJson.get(call.callId) }
            : observation,
        }),
      );
      messages.push(
        toolMessage({
          callId: call.callId,
          tool: call.tool,
          observation: observation.ok ? { ...observation, data: maskedData } : observation,
          dataMasked: observation.ok,
          dataJson,
          durationMs: outcome.durationMs,
          attempts: outcome.attempts,
          maxChars: options.observationMaxChars,
          ...(call.decision ? { decision: call.decision, args: call.args } : {}),
          untrusted: deps.registry.get(call.tool)?.trusted !== true,
        }),
      );
      return { ...callBase(call), status: "done" };
    });

    await record(deps.storage, { runId: run.runId, threadId, batchCalls: batch.calls, outcomes, masked, maskedJson });
    // The breaker counts steps, so it waits until every call of the batch has its result.
    const complete = calls.every((call) => call.status === "done" || call.status === "failed");
    const failsInRow = complete
      ? failedStepsAfter(run.failsInRow, stepResults([...state.messages, ...messages], batch.calls))
      : run.failsInRow;
    const stop = signal.aborted ? cancelledStop(run.language) : null;
    const units = spentCostUnits(deps.registry, outcomes, (callId) => toolOfCall.get(callId) ?? "");
    const toolCostUnits = units > 0 ? { toolCostUnits: (run.toolCostUnits ?? 0) + units } : {};
    return {
      messages,
      batch: { ...batch, calls },
      run: { ...run, failsInRow, lastActiveAt: Date.now(), ...toolCostUnits },
      memory: { add: remembered },
      ...(stop ? { stop } : {}),
    };
  };
}

async function record(
  storage: Storage,
  options: {
    runId: string;
    threadId: string;
    batchCalls: PlannedCall[];
    outcomes: Map<string, CallOutcome>;
    masked: Map<string, unknown>;
    maskedJson: Map<string, string>;
  },
) {
  const finished = options.batchCalls.flatMap((call) => {
    const outcome = options.outcomes.get(call.callId);
    return outcome ? [{ call, outcome }] : [];
  });
  // The results and the calls' records are apart (a round trip each on PostgreSQL): written side by side.
  await Promise.all([saveResults(storage, options, finished), recordToolCalls(storage, options, finished)]);
}

/** Stores the successful results, masked: they are served to clients and the model; only the journal keeps raw values. */
async function saveResults(
  storage: Storage,
  options: { threadId: string; masked: Map<string, unknown>; maskedJson: Map<string, string> },
  finished: Array<{ call: PlannedCall; outcome: CallOutcome }>,
) {
  await Promise.all(
    finished
      .filter(({ outcome }) => outcome.kind === "observation" && outcome.observation.ok)
      .map(({ call }) =>
        storage.saveResult(
          options.threadId,
          call.callId,
          call.tool,
          options.masked.get(call.callId),
          options.maskedJson.get(call.callId),
        ),
      ),
  );
}

/** Records the step's calls together, in the order the model made them. */
async function recordToolCalls(
  storage: Storage,
  options: { runId: string; threadId: string },
  finished: Array<{ call: PlannedCall; outcome: CallOutcome }>,
) {
  await storage.recordToolCalls(
    finished.map(({ call, outcome }) => {
      const errorCode =
        outcome.kind === "observation" && !outcome.observation.ok ? outcome.observation.errorCode : undefined;
      return {
        runId: options.runId,
        threadId: options.threadId,
        callId: call.callId,
        tool: call.tool,
        argsDigest: call.argsHash,
        argsSummary: summarizeArgs(call.args),
        outcome: recordOutcome(outcome, errorCode),
        errorCode,
        durationMs: outcome.durationMs,
      };
    }),
  );
}

function recordOutcome(outcome: CallOutcome, errorCode: ErrorCode | undefined): CallRecordOutcome {
  if (outcome.kind === "needs_user") return "interrupt";
  return errorCode === undefined ? "ok" : ERROR_CLASSES[errorCode].record;
}
