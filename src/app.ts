import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { loadEnv, type Env } from "./env.js";
import { compileGraph, type OpsPilotGraph } from "./graph/graph.js";
import type { RunOptionsInput } from "./graph/config.js";
import { createChatModel } from "./models/provider.js";
import { CancellationRegistry } from "./runtime/cancellation.js";
import type { Runtime } from "./runtime/api.js";
import { createRuntime } from "./runtime/runner.js";
import { openSqlite } from "./storage/open-sqlite.js";
import type { Storage } from "./storage/types.js";
import { createDemoTools, OpsStore } from "./tools/index.js";
import { ToolRegistry } from "./tools/registry.js";
import type { ToolDefinition } from "./tools/types.js";

/** How to assemble opspilot; everything defaults to the environment. */
export interface AppOptions {
  /** Validated settings (read from the environment when omitted). */
  env?: Env;
  /** SQLite file; overrides `OPSPILOT_DB`. */
  dbPath?: string;
  /** Chat model; overrides `OPSPILOT_MODEL`. */
  model?: BaseChatModel;
  /** Tools over the ops store; the demo tools by default. */
  tools?: (ops: OpsStore) => ToolDefinition[];
  /** Default run options. */
  defaults?: RunOptionsInput;
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

/** Assembles opspilot on one SQLite file: checkpoints, write journal, records, events and the demo dataset. */
export function createApp(options: AppOptions = {}): App {
  const env = options.env ?? loadEnv();
  const model = options.model ?? createChatModel(env);
  const backend = openSqlite(options.dbPath ?? env.OPSPILOT_DB);
  const ops = new OpsStore(backend.db);
  const registry = new ToolRegistry((options.tools ?? createDemoTools)(ops));
  const cancellations = new CancellationRegistry();
  const graph = compileGraph({ model, registry, storage: backend.storage, cancellations }, backend.checkpointer);
  const runtime = createRuntime({ graph, registry, storage: backend.storage, cancellations, defaults: options.defaults });
  return {
    env,
    runtime,
    graph,
    storage: backend.storage,
    ops,
    registry,
    async close() {
      await runtime.close();
      backend.close();
    },
  };
}
