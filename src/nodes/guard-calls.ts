import type { RunnableConfig } from "@langchain/core/runnables";
import { readRunOptions } from "../graph/config.js";
import type { AgentStateType, AgentStateUpdate } from "../graph/state.js";
import { RECENT_STEPS_KEPT, asksApproval, checkLimits, stepFingerprint } from "../graph/guard.js";
import { lastAssistant } from "../graph/calls/pairing.js";
import { proposedCalls } from "../contracts/calls.js";
import { limitStop } from "../graph/stop-message.js";
import type { ToolRegistry } from "../tools/registry.js";
import { taintOf } from "../graph/calls/taint.js";

/** `guard_calls`, a stage of `call_model`'s step: deterministic stop rules over the run's counters and the calls just proposed. */
export function makeGuardCalls(deps: { registry: ToolRegistry }) {
  return function guardCalls(state: AgentStateType, config: RunnableConfig): AgentStateUpdate {
    const options = readRunOptions(config);
    const run = state.run!;
    const calls = proposedCalls(lastAssistant(state.messages)!);
    const now = Date.now();
    const updated = {
      ...run,
      recentSteps: [...run.recentSteps, stepFingerprint(calls)].slice(-RECENT_STEPS_KEPT),
      lastActiveAt: now,
    };
    const tainted = taintOf(state.messages, deps.registry) !== null;
    const hit = checkLimits({ run: updated, options, now, asksApproval: asksApproval(calls, deps.registry, tainted) });
    if (hit) return { run: updated, stop: limitStop(hit, run.language) };
    // No limit hit: `stop` is written only to clear one, so a step does not rewrite an unchanged channel.
    return state.stop === null ? { run: updated } : { run: updated, stop: null };
  };
}
