import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { openApp, type App } from "../../app/assemble.js";
import { openRunbooks } from "../../app/sources/runbooks.js";
import { serverRunLimits } from "../../app/run-limits.js";
import { loadEnv } from "../../config/env.js";
import { loadConfig } from "../../config/file.js";
import type { ConfigFile } from "../../config/schema.js";
import { loadChatModel } from "../../app/chat-model.js";
import { createDemoTools } from "../../demo/index.js";
import type { Logger } from "../../service/observability/logger.js";
import { createOutboundTools } from "../outbound-tools.js";
import { ScenarioTools } from "../scenario-tools.js";
import type { Fault } from "../scenario-schema.js";

/** What an evaluation runs on. */
export interface EvalAppOptions {
  /** The environment's variables (`process.env` in the CLI). */
  variables: Readonly<Record<string, string | undefined>>;
  /** `demo`, `openai:<model>` or `anthropic:<model>`; the configured `OPSPILOT_MODEL` when omitted. */
  model?: string;
  /** A chat model object instead of `model` (tests). */
  chatModel?: BaseChatModel;
  /** The config file (MCP servers, tool policies, runbooks); `OPSPILOT_CONFIG` when omitted. */
  configPath?: string;
  /** Every fault the scenarios plant, so the wrapped tools know their fallbacks. */
  faults: readonly Fault[];
  /** Toolsets added to the config file's (a scenario's stand-ins). */
  toolsets?: ConfigFile["toolsets"];
}

/** The app an evaluation drives, with its planted faults and what it logged. */
export interface EvalApp {
  /** The assembled opspilot (the runtime the server and the CLI use). */
  app: App;
  /** Each scenario thread's own demo dataset and planted faults. */
  tools: ScenarioTools;
  /** The model's name as configured. */
  model: string;
  /** Failures the app logged while the scenarios ran (model or tool crashes). */
  logged: string[];
  /** Closes the app and removes its temporary database. */
  close(): Promise<void>;
}

/**
 * Opens opspilot for an evaluation: the configured (or named) model, the demo tools, the eval's
 * outbound tools (`notify_channel`, `create_ticket`, `send_webhook`: egress stand-ins that send
 * nothing) and the config file's MCP servers and runbooks, on a fresh SQLite file in a temporary folder, so an
 * evaluation never touches the real database (`DATABASE_URL` is ignored). Each scenario's demo
 * tools run on its own copy of the dataset (`ScenarioTools`).
 */
export async function openEvalApp(options: EvalAppOptions): Promise<EvalApp> {
  const folder = mkdtempSync(join(tmpdir(), "opspilot-eval-"));
  const remove = () => rmSync(folder, { recursive: true, force: true });
  try {
    const env = loadEnv({
      ...options.variables,
      OPSPILOT_MODEL: options.model ?? options.variables.OPSPILOT_MODEL,
      OPSPILOT_CONFIG: options.configPath ?? options.variables.OPSPILOT_CONFIG,
      OPSPILOT_DB: join(folder, "eval.sqlite"),
      DATABASE_URL: undefined,
    });
    const loaded = loadConfig(env.OPSPILOT_CONFIG, options.variables);
    const config = options.toolsets ? { ...loaded, toolsets: { ...loaded.toolsets, ...options.toolsets } } : loaded;
    // Checked before anything opens, so a bad model or limit leaves nothing to close.
    serverRunLimits(env, config);
    const model = options.chatModel ?? (await loadChatModel(env));
    const logged: string[] = [];
    const logger: Logger = { error: (message) => void logged.push(message) };
    const runbooks = await openRunbooks(config, logger);
    const tools = new ScenarioTools(runbooks);
    const app = await openApp({
      env,
      config,
      logger,
      runbooks,
      model,
      tools: (ops) => tools.wrap([...createDemoTools(ops, runbooks), ...createOutboundTools()], options.faults),
    });
    return {
      app,
      tools,
      model: env.OPSPILOT_MODEL,
      logged,
      async close() {
        await app.close();
        tools.close();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
