import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { readRunOptions, recursionLimitFor } from "../graph/config.js";
import type { OpsPilotGraph } from "../graph/graph.js";
import { hostedGraph } from "./assemble.js";

/** What the LangGraph server passes a graph factory next to the config (`executionRuntime` is set for runs). */
export interface ServerGraphRuntime {
  /** The run's `context`, when the graph is fetched to run. */
  executionRuntime?: { context?: unknown } | null;
}

let shared: OpsPilotGraph | undefined;

/**
 * The graph compiled once per server process, without a checkpointer (the LangGraph server
 * supplies its own); the journal, records and demo dataset live in `OPSPILOT_DB`.
 */
function sharedGraph(): OpsPilotGraph {
  shared ??= hostedGraph();
  return shared;
}

/**
 * The opspilot graph for `langgraph.json`, called by the server per request: the same builder
 * as everywhere, with LangGraph's recursion limit bound from the run's `maxSteps` (context over
 * configurable) so the step guard always stops first. Invalid options bind nothing here; the
 * run itself rejects them with the validation message.
 */
export function graph(config: LangGraphRunnableConfig = {}, runtime: ServerGraphRuntime = {}): OpsPilotGraph {
  let recursionLimit: number;
  try {
    recursionLimit = recursionLimitFor(readRunOptions({ ...config, context: runtime.executionRuntime?.context }));
  } catch {
    return sharedGraph();
  }
  return sharedGraph().withConfig({ recursionLimit });
}
