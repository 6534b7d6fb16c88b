import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Database } from "better-sqlite3";
import { loadEnv, type Env } from "../config/env.js";
import { compileGraph, type OpsPilotGraph } from "../graph/graph.js";
import type { RunOptionsInput } from "../graph/config.js";
import { createChatModel } from "../models/provider.js";
import { CancellationRegistry } from "../service/cancellation.js";
import type { Runtime } from "../service/runtime.js";
import { createRuntime } from "../service/create-runtime.js";
import type { RunEvent } from "../contracts/events.js";
import type { CurrentRoles } from "../contracts/user.js";
import type { Logger } from "../service/logger.js";
import { openPostgres } from "../storage/open-postgres.js";
import { openSqlite } from "../storage/open-sqlite.js";
import type { Storage } from "../storage/types.js";
import { createDemoTools, OpsStore } from "../tools/index.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ToolDefinition } from "../tools/types.js";

/** How to assemble opspilot; everything defaults to the environment. */
export interface AppOptions {
  /** Validated settings (read from the environment when omitted). */
  env?: Env;
  /** SQLite file (with `DATABASE_URL`, only the demo dataset's); overrides `OPSPILOT_DB`. */
  dbPath?: string;
  /** Chat model; overrides `OPSPILOT_MODEL`. */
  model?: BaseChatModel;
  /** Tools over the ops store; the demo tools by default. */
  tools?: (ops: OpsStore) => ToolDefinition[];
  /** Default run options. */
  defaults?: RunOptionsInput;
  /** Sees every event of every run (metrics). */
  onEvent?: (event: RunEvent) => void;
  /** Receives unexpected run failures (stderr by default). */
  logger?: Logger;
  /** On close, how long running runs may go on before they are cancelled (0 by default). */
  shutdownGraceMs?: number;
  /** The roles each user id holds now (the server's token table); resumes check the thread owner's against it. */
  currentRoles?: CurrentRoles;
}

/** An assembled opspilot: the runtime and the parts behind it. */
export interface App {
  env: Env;
  runtime: Runtime;
  graph: OpsPilotGraph;
  storage: Storage;
  ops: OpsStore;
  registry: ToolRegistry;
  /** Closes the database. */
  close(): Promise<void>;
}

/** Where an app keeps its state. */
interface Backend {
  checkpointer: BaseCheckpointSaver;
  storage: Storage;
  /** The SQLite connection the demo dataset lives on. */
  opsDb: Database;
  close(): Promise<void>;
}

/** The parts the loop is wired from, whatever hosts it. */
export interface LoopParts {
  /** Chat model (demo, OpenAI-compatible, or scripted in tests and benchmarks). */
  model: BaseChatModel;
  /** The tools the model may call. */
  registry: ToolRegistry;
  /** Journal, raw results, records, events and leases. */
  storage: Storage;
  /** Checkpoints shared by every process serving these threads. */
  checkpointer: BaseCheckpointSaver;
  /** Default run options. */
  defaults?: RunOptionsInput;
  /** Sees every event of every run (metrics). */
  onEvent?: (event: RunEvent) => void;
  /** Receives unexpected run failures (stderr by default). */
  logger?: Logger;
  /** On close, how long running runs may go on before they are cancelled (0 by default). */
  shutdownGraceMs?: number;
  /** The roles each user id holds now (the server's token table); resumes check the thread owner's against it. */
  currentRoles?: CurrentRoles;
}

/**
 * The one place the loop is wired: the graph over the parts, and the runtime that drives it
 * with the same tools and cancel signals. The server, the CLI, tests and benchmarks all come here.
 */
export function wireLoop(parts: LoopParts): { graph: OpsPilotGraph; runtime: Runtime } {
  const cancellations = new CancellationRegistry();
  const graph = compileGraph(
    { model: parts.model, registry: parts.registry, storage: parts.storage, cancellations },
    parts.checkpointer,
  );
  const runtime = createRuntime({
    graph,
    registry: parts.registry,
    storage: parts.storage,
    cancellations,
    defaults: parts.defaults,
    onEvent: parts.onEvent,
    logger: parts.logger,
    shutdownGraceMs: parts.shutdownGraceMs,
    currentRoles: parts.currentRoles,
  });
  return { graph, runtime };
}

/**
 * The graph a LangGraph server hosts (`langgraph.json` through `studio.ts`): the demo tools
 * and the model from `env`, the journal, records and demo dataset in `OPSPILOT_DB`, and no
 * checkpointer, because the server supplies its own. Runs end on their own: the server cancels them.
 */
export function hostedGraph(env: Env = loadEnv()): OpsPilotGraph {
  const backend = openSqlite(env.OPSPILOT_DB);
  const registry = new ToolRegistry(createDemoTools(new OpsStore(backend.db)));
  return compileGraph({ model: createChatModel(env), registry, storage: backend.storage });
}

/** Builds the tools, graph and runtime over a backend. */
function assemble(options: AppOptions, env: Env, model: BaseChatModel, backend: Backend): App {
  const ops = new OpsStore(backend.opsDb);
  const registry = new ToolRegistry((options.tools ?? createDemoTools)(ops));
  const { graph, runtime } = wireLoop({ ...options, model, registry, ...backend });
  return {
    env,
    runtime,
    graph,
    storage: backend.storage,
    ops,
    registry,
    async close() {
      await runtime.close();
      await backend.close();
    },
  };
}

/**
 * Assembles opspilot on one SQLite file: checkpoints, write journal, records, events and the
 * demo dataset. Ignores `DATABASE_URL`; `openApp` honours it.
 */
export function createApp(options: AppOptions = {}): App {
  const env = options.env ?? loadEnv();
  const model = options.model ?? createChatModel(env);
  const sqlite = openSqlite(options.dbPath ?? env.OPSPILOT_DB);
  return assemble(options, env, model, {
    checkpointer: sqlite.checkpointer,
    storage: sqlite.storage,
    opsDb: sqlite.db,
    close: async () => sqlite.close(),
  });
}

/**
 * Assembles opspilot from the environment: with `DATABASE_URL`, checkpoints, journal, records,
 * events and run leases live in PostgreSQL, shared by every process serving the same threads;
 * the demo dataset stays in this process's SQLite file `OPSPILOT_DB`. Without it, as `createApp`.
 */
export async function openApp(options: AppOptions = {}): Promise<App> {
  const env = options.env ?? loadEnv();
  if (!env.DATABASE_URL) return createApp({ ...options, env });
  const model = options.model ?? createChatModel(env);
  // The demo dataset stands in for the infrastructure the tools would call; it is not shared.
  const demo = openSqlite(options.dbPath ?? env.OPSPILOT_DB);
  const postgres = await openPostgres(env.DATABASE_URL).catch((error: unknown) => {
    demo.close();
    throw error;
  });
  return assemble(options, env, model, {
    checkpointer: postgres.checkpointer,
    storage: postgres.storage,
    opsDb: demo.db,
    async close() {
      await postgres.close();
      demo.close();
    },
  });
}
