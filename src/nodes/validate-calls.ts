import type { RunnableConfig } from "@langchain/core/runnables";
import { readRunOptions } from "../graph/config.js";
import { userOf } from "../graph/context.js";
import type { AgentStateType, AgentStateUpdate } from "../graph/state.js";
import { lastAssistant, proposedCalls } from "../graph/pairing.js";
import { planCall } from "../graph/validation.js";
import { allowedToolForStep } from "../graph/serial-mode.js";
import type { ToolRegistry } from "../tools/registry.js";

/** `validate_calls`: decides every proposed call's status; pure, no side effects. */
export function makeValidateCalls(deps: { registry: ToolRegistry }) {
  return function validateCalls(state: AgentStateType, config: RunnableConfig): AgentStateUpdate {
    const options = readRunOptions(config);
    const run = state.run!;
    const context = {
      registry: deps.registry,
      user: userOf(options),
      allowedTool: allowedToolForStep(options, run.steps),
    };
    const calls = proposedCalls(lastAssistant(state.messages)!).map((call) => planCall(call, context));
    return { batch: { step: run.steps, calls }, run: { ...run, lastActiveAt: Date.now() } };
  };
}
