import type { RunnableConfig } from "@langchain/core/runnables";
import { readRunOptions } from "../graph/config.js";
import type { AgentStateType, AgentStateUpdate } from "../graph/state.js";
import { fingerprint } from "../contracts/canonical.js";
import { checkLimits } from "../graph/guard.js";
import { lastAssistant, proposedCalls } from "../graph/pairing.js";

const RECENT_STEPS_KEPT = 8;

/** `guard_calls`: deterministic stop rules over the run's counters and the calls just proposed. */
export function makeGuardCalls() {
  return function guardCalls(state: AgentStateType, config: RunnableConfig): AgentStateUpdate {
    const options = readRunOptions(config);
    const run = state.run!;
    const calls = proposedCalls(lastAssistant(state.messages)!);
    const stepFingerprint = calls
      .map((call) => fingerprint(call.name, call.args))
      .sort()
      .join("|");
    const now = Date.now();
    const updated = {
      ...run,
      recentSteps: [...run.recentSteps, stepFingerprint].slice(-RECENT_STEPS_KEPT),
      lastActiveAt: now,
    };
    return { run: updated, stop: checkLimits({ run: updated, options, now }) };
  };
}
