import type { Observation } from "../contracts/observation.js";
import type { PlannedCall } from "../contracts/calls.js";
import type { WriteJournal } from "../storage/types.js";
import { withFallback } from "../tools/policy.js";
import type { ToolRegistry } from "../tools/registry.js";
import { sourceOf } from "../tools/tool-view.js";
import type { ToolContext, ToolDefinition } from "../tools/types.js";
import { runCall, type CallOutcome } from "./call-tool.js";
import { runWrite } from "./write-journal.js";
import type { ToolRateLimits } from "./tool-rate-limits.js";

/** Re-exported where the budgets used to live. */
export { ToolRateLimits } from "./tool-rate-limits.js";

/** What one call needs to run under its tool's policy. */
export interface GovernedCallOptions {
  /** The validated call. */
  call: PlannedCall;
  /** Its tool, with the config's policy applied. */
  tool: ToolDefinition;
  /** Context without the signal. */
  context: Omit<ToolContext, "signal">;
  /** Cancels the run. */
  signal: AbortSignal;
  /** The write journal (writes only). */
  journal: WriteJournal;
  /** Tells which servers are up and which fallbacks exist. */
  registry: ToolRegistry;
  /** The graph's call budgets. */
  limits: ToolRateLimits;
}

/**
 * Runs one ready call under its tool's policy: a tool whose server is down or whose budget
 * is spent is refused before the call reaches it; reads go to the executor, writes through
 * the journal; a failure lists the configured fallbacks the user may call now; and the
 * observation names its source and when it was obtained.
 */
export async function runGoverned(options: GovernedCallOptions): Promise<CallOutcome> {
  const { call, tool, context, signal, journal, registry, limits } = options;
  const admit = async (): Promise<Observation | undefined> => {
    const down = registry.unavailableReason(tool.name);
    if (down !== undefined) {
      return {
        ok: false,
        errorCode: "transient",
        message: `${tool.name} is unavailable: its server ${tool.source?.server ?? ""} is down (${down}).`,
      };
    }
    return limits.take(tool, context.user);
  };
  const outcome = tool.readOnly
    ? await runCall({ tool, args: call.args, context, signal, admit })
    : await runWrite({ call, tool, context, signal, journal, admit });
  if (outcome.kind !== "observation") return outcome;
  const observation = withFallback(outcome.observation, tool, { registry, role: context.user.role });
  return {
    ...outcome,
    observation: {
      ...observation,
      source: observation.source ?? sourceOf(tool),
      fetchedAt: observation.fetchedAt ?? new Date().toISOString(),
    },
  };
}
