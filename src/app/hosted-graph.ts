import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { environmentVariables, loadEnv, type Env } from "../config/env.js";
import { loadConfig } from "../config/file.js";
import { compileGraph, type OpsPilotGraph } from "../agent/graph.js";
import { loadChatModel } from "./chat-model.js";
import { contextBudgetFor, type ContextBudget } from "../models/context-budget.js";
import { consoleLogger } from "../service/observability/logger.js";
import { openSqlite } from "../storage/sqlite/open-sqlite.js";
import type { Storage } from "../storage/types.js";
import { createThreadTools } from "../tools/index.js";
import { OpsStore, PostgresLedger } from "../demo/index.js";
import { builtInTools, startRunbooks } from "./sources/runbooks.js";
import { buildToolRegistry, startToolSources } from "./sources/tool-catalog.js";
import { dailyQuotas, serverRunLimits, type ServerRunLimits } from "./run-limits.js";
import type { DailyQuotas } from "../service/runtime/quotas.js";
import { postgresBudgets } from "../execution/rate-limit-store.js";
import { ToolRateLimits } from "../execution/tool-rate-limits.js";
import { tracedModelOf, tracingFromEnv, type TracingEnv } from "./tracing.js";
import { GraphRunEvents } from "../service/events/graph-run-events.js";
import { makeArgsView } from "../service/events/args-view.js";

/** The graph a LangGraph server hosts, and the run limits its runs are held to. */
export interface HostedGraph {
  /** Compiled without a checkpointer. */
  graph: OpsPilotGraph;
  /** The environment's defaults and ceilings and the config file's profiles. */
  limits: ServerRunLimits;
  /** The journal and records in PostgreSQL or SQLite, as the graph writes them. */
  storage: Storage;
  /** The environment's daily quotas per user. */
  quotas: DailyQuotas;
  /** The demo estate the built-in tools act on. */
  ops: OpsStore;
  /** Closes the databases (a server process keeps them until it exits). */
  close(): Promise<void>;
}

/**
 * The graph a LangGraph server hosts (`langgraph.json` through `studio.ts`): the tools of the
 * config file (`OPSPILOT_CONFIG`; MCP servers connect in the background), the model from
 * `env`, and no checkpointer, because the server supplies its own. The write journal and the
 * records, the demo estate's restarts and rollbacks and the tools' `rateLimit` budgets live in
 * PostgreSQL when `DATABASE_URL` is set, shared by every replica (the at-most-once journal
 * must be), else in `OPSPILOT_DB` and this process's memory;
 * the demo dataset's static part is rebuilt in each replica's `OPSPILOT_DB`. Runs end on their own:
 * the server cancels them. `model` replaces the environment's (the benchmark's scripted model). With
 * OpenTelemetry's variables in `tracingEnv`, its runs send the same spans as the server's and the CLI's.
 */
export async function hostedGraph(
  env: Env = loadEnv(),
  model?: BaseChatModel,
  tracingEnv: TracingEnv = environmentVariables(),
): Promise<HostedGraph> {
  const config = loadConfig(env.OPSPILOT_CONFIG, environmentVariables());
  const limits = serverRunLimits(env, config);
  const chatModel = model ?? (await loadChatModel(env));
  const logger = consoleLogger(env.OPSPILOT_LOG_LEVEL);
  const demo = openSqlite(env.OPSPILOT_DB);
  const shared = env.DATABASE_URL ? await sharedStorage(env.DATABASE_URL, demo) : undefined;
  const storage = shared?.storage ?? demo.storage;
  const ops = new OpsStore(demo.db, { ledger: shared?.ledger });
  const registry = buildToolRegistry({
    config,
    builtIn: [...builtInTools({ config, ops, runbooks: startRunbooks(config, logger) }), ...createThreadTools(storage)],
    sources: startToolSources(config, logger),
    logger,
  });
  const compiled = compileGraph({
    model: chatModel,
    registry,
    storage,
    contextBudget: contextBudgetOf(env),
    rateLimits: new ToolRateLimits({
      store: shared?.budgets,
      onStoreError: (message, error) => logger.error(message, error),
    }),
  });
  const tracing = tracingFromEnv(tracingEnv, {
    model: tracedModelOf(env),
    logger,
    serverOf: (tool) => registry.get(tool)?.source?.server,
  });
  // The server drives the graph: its runs are told to the tracer by LangGraph's own callbacks.
  const graph = tracing
    ? compiled.withConfig({ callbacks: [new GraphRunEvents(tracing.observe, makeArgsView(registry))] })
    : compiled;
  const close = async () => {
    await tracing?.shutdown();
    await shared?.close();
    demo.close();
  };
  return { graph, limits, storage, quotas: dailyQuotas(env), ops, close };
}

/**
 * The journal, records, the demo estate's mutable state and the call budgets in PostgreSQL (loaded only then:
 * SQLite servers pay nothing for the client).
 */
async function sharedStorage(databaseUrl: string, demo: { close(): void }) {
  const { openPostgres } = await import("../storage/postgres/open-postgres.js");
  const postgres = await openPostgres(databaseUrl).catch((error: unknown) => {
    demo.close();
    throw error;
  });
  try {
    const ledger = await PostgresLedger.open(postgres.pool);
    const budgets = await postgresBudgets(postgres.pool);
    return { storage: postgres.storage, ledger, budgets, close: postgres.close };
  } catch (error) {
    await postgres.close();
    demo.close();
    throw error;
  }
}

/** The context budget of the configured model: `OPSPILOT_CONTEXT_TOKENS` over its family's window, `OPSPILOT_CONTEXT_TARGET_TOKENS` over its target. */
export function contextBudgetOf(env: Env): ContextBudget {
  return contextBudgetFor({
    model: env.OPSPILOT_MODEL,
    contextTokens: env.OPSPILOT_CONTEXT_TOKENS,
    targetTokens: env.OPSPILOT_CONTEXT_TARGET_TOKENS,
  });
}
