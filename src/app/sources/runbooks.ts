import type { ConfigFile } from "../../config/schema.js";
import type { Logger } from "../../service/observability/logger.js";
import { createDemoTools, demoRunbookDocuments, type OpsStore } from "../../demo/index.js";
import {
  createRunbookSource,
  createSearchDocsTool,
  type RunbookProblem,
  type RunbookSource,
} from "../../tools/index.js";
import { createToolsetTools } from "../../tools/toolsets/index.js";
import type { ToolDefinition } from "../../tools/types.js";

/** A problem in the folder goes to the log and indexing goes on: one bad file must not hide the others. */
function reportTo(logger: Logger): (problem: RunbookProblem) => void {
  return (problem) => logger.error(`Runbooks: ${problem.path === "." ? "" : `${problem.path} `}${problem.message}`);
}

/**
 * The config's runbooks folder as a source, not started; undefined when the config names none.
 * With the demo tools on, the demo runbooks are ranked with the folder's.
 */
function runbooksOf(config: ConfigFile, logger: Logger): RunbookSource | undefined {
  if (!config.runbooks) return undefined;
  const documents = config.demo ? demoRunbookDocuments() : undefined;
  return createRunbookSource({ folder: config.runbooks, documents, report: reportTo(logger) });
}

/** The runbooks folder, searchable once this resolves; undefined without one. The caller closes it. */
export async function openRunbooks(config: ConfigFile, logger: Logger): Promise<RunbookSource | undefined> {
  const runbooks = runbooksOf(config, logger);
  await runbooks?.start();
  return runbooks;
}

/** The same for a host that cannot wait: the first index is built in the background. */
export function startRunbooks(config: ConfigFile, logger: Logger): RunbookSource | undefined {
  const runbooks = runbooksOf(config, logger);
  runbooks?.start().catch((error: unknown) => logger.error("Runbooks folder failed to index", error));
  return runbooks;
}

/** What the built-in tools are made from. */
export interface BuiltInToolsOptions {
  /** The config file (`demo`). */
  config: ConfigFile;
  /** The demo dataset. */
  ops: OpsStore;
  /** The runbooks folder, when the config names one. */
  runbooks: RunbookSource | undefined;
  /** Replaces the demo tools (tests pass their own); the default's `search_docs` also searches the folder. */
  demoTools?: (ops: OpsStore) => ToolDefinition[];
}

/**
 * The tools of this process: the demo tools unless `demo: false`, their `search_docs` ranking
 * the runbooks folder beside the demo runbooks; with `demo: false`, `search_docs` alone over the
 * folder. Then the tools of the configured `toolsets` (Prometheus, Alertmanager).
 */
export function builtInTools(options: BuiltInToolsOptions): ToolDefinition[] {
  return [...ownTools(options), ...createToolsetTools(options.config.toolsets ?? {})];
}

function ownTools(options: BuiltInToolsOptions): ToolDefinition[] {
  const { config, ops, runbooks } = options;
  if (config.demo) return options.demoTools ? options.demoTools(ops) : createDemoTools(ops, runbooks);
  return runbooks ? [createSearchDocsTool(runbooks)] : [];
}
