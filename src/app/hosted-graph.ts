import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { environmentVariables, loadEnv, type Env } from "../config/env.js";
import { loadConfig } from "../config/file.js";
import { compileGraph, type OpsPilotGraph } from "../agent/graph.js";
import { createChatModel } from "../models/provider.js";
import { contextBudgetFor, type ContextBudget } from "../models/context-budget.js";
import { consoleLogger } from "../service/logger.js";
import { openSqlite } from "../storage/open-sqlite.js";
import { createThreadTools, OpsStore } from "../tools/index.js";
import { builtInTools, startRunbooks } from "./runbooks.js";
import { buildToolRegistry, startToolSources } from "./tool-catalog.js";
import { serverRunLimits, type ServerRunLimits } from "./run-limits.js";

/** The graph a LangGraph server hosts, and the run limits its runs are held to. */
export interface HostedGraph {
  /** Compiled without a checkpointer. */
  graph: OpsPilotGraph;
  /** The environment's defaults and ceilings and the config file's profiles. */
  limits: ServerRunLimits;
}

/**
 * The graph a LangGraph server hosts (`langgraph.json` through `studio.ts`): the tools of the
 * config file (`OPSPILOT_CONFIG`; MCP servers connect in the background), the model from
 * `env`, the journal, records and demo dataset in `OPSPILOT_DB`, and no checkpointer, because
 * the server supplies its own. Runs end on their own: the server cancels them. `model` replaces
 * the environment's (the benchmark's scripted model).
 */
export function hostedGraph(env: Env = loadEnv(), model?: BaseChatModel): HostedGraph {
  const config = loadConfig(env.OPSPILOT_CONFIG, environmentVariables());
  const limits = serverRunLimits(env, config);
  const logger = consoleLogger(env.OPSPILOT_LOG_LEVEL);
  const backend = openSqlite(env.OPSPILOT_DB);
  const registry = buildToolRegistry({
    config,
    builtIn: [
      ...builtInTools({ config, ops: new OpsStore(backend.db), runbooks: startRunbooks(config, logger) }),
      ...createThreadTools(backend.storage),
    ],
    sources: startToolSources(config, logger),
    logger,
  });
  const graph = compileGraph({
    model: model ?? createChatModel(env),
    registry,
    storage: backend.storage,
    contextBudget: contextBudgetOf(env),
  });
  return { graph, limits };
}

/** The context budget of the configured model, `OPSPILOT_CONTEXT_TOKENS` over its family's window. */
export function contextBudgetOf(env: Env): ContextBudget {
  return contextBudgetFor({ model: env.OPSPILOT_MODEL, contextTokens: env.OPSPILOT_CONTEXT_TOKENS });
}
