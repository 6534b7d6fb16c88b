import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { compileGraph, type OpsPilotGraph } from "../agent/graph.js";
import type { ContextBudget } from "../models/context-budget.js";
import { CancellationRegistry } from "../service/runtime/cancellation.js";
import type { Runtime } from "../service/runtime/runtime.js";
import { createRuntime } from "../service/runtime/create-runtime.js";
import { type RuntimeSettings } from "../service/runtime/settings.js";
import type { Storage } from "../storage/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolRateLimits } from "../execution/tool-rate-limits.js";

/** The parts the loop is wired from, whatever hosts it, and how its runtime behaves. */
export interface LoopParts extends RuntimeSettings {
  /** Chat model (demo, OpenAI-compatible, or scripted in tests and benchmarks). */
  model: BaseChatModel;
  /** The tools the model may call. */
  registry: ToolRegistry;
  /** Journal, raw results, records, events and leases. */
  storage: Storage;
  /** Checkpoints shared by every process serving these threads. */
  checkpointer: BaseCheckpointSaver;
  /** The model's context window (the demo model's when omitted): every request is built to fit it. */
  contextBudget?: ContextBudget;
  /** The `rateLimit` budgets, shared by every process on PostgreSQL (this process's memory when omitted). */
  rateLimits?: ToolRateLimits;
}

/**
 * The one place the loop is wired: the graph over the parts, and the runtime that drives it
 * with the same tools and cancel signals. The server, the CLI, tests and benchmarks all come here.
 */
export function wireLoop(parts: LoopParts): { graph: OpsPilotGraph; runtime: Runtime } {
  const cancellations = new CancellationRegistry();
  const graph = compileGraph(
    {
      model: parts.model,
      registry: parts.registry,
      storage: parts.storage,
      cancellations,
      contextBudget: parts.contextBudget,
      rateLimits: parts.rateLimits,
      keepHistory: parts.keepHistory,
    },
    parts.checkpointer,
  );
  const runtime = createRuntime({
    graph,
    registry: parts.registry,
    storage: parts.storage,
    cancellations,
    defaults: parts.defaults,
    limits: parts.limits,
    quotas: parts.quotas,
    onEvent: parts.onEvent,
    onPause: parts.onPause,
    onApprovalExpired: parts.onApprovalExpired,
    logger: parts.logger,
    shutdownGraceMs: parts.shutdownGraceMs,
    currentRoles: parts.currentRoles,
    keepHistory: parts.keepHistory,
    sharedOwners: parts.sharedOwners,
  });
  return { graph, runtime };
}
