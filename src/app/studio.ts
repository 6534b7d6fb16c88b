import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { readRunOptions, recursionLimitFor } from "../graph/config.js";
import type { OpsPilotGraph } from "../agent/graph.js";
import { checkCeilings, limitsOf, resolveRunLimits } from "../graph/limits.js";
import { hostedGraph, type HostedGraph } from "./hosted-graph.js";
import { authenticatedUser, RUN_ENTRY_KEY } from "../graph/auth-user.js";
import { checkQuotas } from "../service/runtime/quotas.js";
import { InvalidRunOptionsError } from "../contracts/errors.js";

/** What the LangGraph server passes a graph factory next to the config (`executionRuntime` is set for runs). */
export interface ServerGraphRuntime {
  /** The run's `context`, when the graph is fetched to run. */
  executionRuntime?: { context?: unknown } | null;
}

let shared: Promise<HostedGraph> | undefined;

/**
 * The graph compiled once per server process, without a checkpointer (the LangGraph server
 * supplies its own); a start that failed (PostgreSQL unreachable) is tried again on the next request.
 */
function sharedGraph(): Promise<HostedGraph> {
  shared ??= hostedGraph().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/**
 * A graph factory over `hosted`: each run gets the environment's limits and prices as defaults,
 * then the limits of the profile its context names (its context and configurable win) and
 * LangGraph's recursion limit from its `maxSteps`, so the step guard always stops first. A limit
 * above the environment's ceiling fails the run with `limit_above_ceiling`, and options that do
 * not fit their schema with `InvalidRunOptionsError` naming each field, before it starts.
 */
export function studioGraphFactory(hosted: () => Pick<HostedGraph, "graph" | "limits">) {
  return (config: LangGraphRunnableConfig = {}, runtime: ServerGraphRuntime = {}): OpsPilotGraph => {
    const { graph: base, limits } = hosted();
    const context = (runtime.executionRuntime?.context ?? {}) as Record<string, unknown>;
    const configurable = (config.configurable ?? {}) as Record<string, unknown>;
    checkCeilings(limitsOf({ ...configurable, ...context }), limits.policy);
    // A profile named in the context (Studio's form) or configurable sets limits the run's own values override.
    const profile = [context.profile, configurable.profile].find((value): value is string => typeof value === "string");
    const bound = { ...limits.defaults, ...(profile ? resolveRunLimits(limits.policy, { profile }) : {}) };
    let recursionLimit: number;
    try {
      const options = readRunOptions({ configurable: { ...bound, ...configurable }, context });
      recursionLimit = recursionLimitFor(options);
    } catch (error) {
      // A run fails here with one line per field; LangGraph's own check of the context would dump the schema's issues.
      if (runtime.executionRuntime && error instanceof InvalidRunOptionsError) throw error;
      return base.withConfig({ configurable: bound });
    }
    return base.withConfig({ recursionLimit, configurable: bound });
  };
}

/** The opspilot graph for `langgraph.json`, called by the server per request (it awaits a factory's promise). */
export async function graph(config?: LangGraphRunnableConfig, runtime?: ServerGraphRuntime): Promise<OpsPilotGraph> {
  const hosted = await sharedGraph();
  if (runtime?.executionRuntime) await admitRun(hosted, config);
  return studioGraphFactory(() => hosted)(config, runtime);
}

/**
 * Refuses a run on the LangGraph server whose user has spent a daily quota (`OPSPILOT_QUOTA_*`),
 * from the usage every replica shares. A run the auth handler marked as new (`RUN_ENTRY_KEY`)
 * counts against the runs-per-day quota; a resume, or a run on a server without opspilot's
 * auth handler, only against tokens and cost.
 */
export async function admitRun(
  hosted: Pick<HostedGraph, "storage" | "quotas">,
  config: LangGraphRunnableConfig = {},
): Promise<void> {
  const { quotas } = hosted;
  if (quotas.runs === undefined && quotas.tokens === undefined && quotas.costUsd === undefined) return;
  const configurable = (config.configurable ?? {}) as Record<string, unknown>;
  const userId = authenticatedUser(configurable)?.id ?? readRunOptions({ configurable }).userId;
  const entry = configurable[RUN_ENTRY_KEY] === "start" ? "start" : "continue";
  await checkQuotas({ usage: hosted.storage, quotas: hosted.quotas, userId, entry });
}
