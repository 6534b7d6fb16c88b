import type { RunnableConfig } from "@langchain/core/runnables";
import { readRunOptions } from "../graph/config.js";
import { userOf } from "../graph/context.js";
import type { AgentStateType, AgentStateUpdate } from "../graph/state.js";
import { lastAssistant } from "../graph/calls/pairing.js";
import { proposedCalls } from "../contracts/calls.js";
import { limitWrites, planCall } from "../graph/calls/validation.js";
import { allowedToolForStep } from "../graph/guard.js";
import type { ToolRegistry } from "../tools/registry.js";
import { egressNotes, taintOf } from "../graph/calls/taint.js";
import { markPreviews } from "../graph/calls/previews.js";

/** `validate_calls`, a stage of `call_model`'s step after the guard: decides every proposed call's status; pure, no side effects. */
export function makeValidateCalls(deps: { registry: ToolRegistry }) {
  return function validateCalls(state: AgentStateType, config: RunnableConfig): AgentStateUpdate {
    const options = readRunOptions(config);
    const run = state.run!;
    const taint = taintOf(state.messages, deps.registry);
    const context = {
      registry: deps.registry,
      user: userOf(options),
      allowedTool: allowedToolForStep(options, run.steps),
      ...(taint ? { egressNote: egressNotes(taint, state.messages, deps.registry) } : {}),
    };
    const planned = proposedCalls(lastAssistant(state.messages)!).map((call) => planCall(call, context));
    const calls = markPreviews(limitWrites(planned, options.writesPerStep), deps.registry);
    // Counted here, where the pause is decided, so the guard can cap approval pauses per run.
    const approvalPauses = (run.approvalPauses ?? 0) + (calls.some((call) => call.status === "needs_approval") ? 1 : 0);
    return { batch: { step: run.steps, calls }, run: { ...run, approvalPauses, lastActiveAt: Date.now() } };
  };
}
