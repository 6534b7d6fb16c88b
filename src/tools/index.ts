import { createGetServiceMetricsTool } from "../demo/tools/get-service-metrics.js";
import type { OpsStore } from "../demo/ops/store.js";
import { createRestartServiceTool } from "../demo/tools/restart-service.js";
import { createRollbackDeployTool } from "../demo/tools/rollback-deploy.js";
import { createSearchDocsTool, type DocsSearch } from "./search-docs.js";
import { createSearchLogsTool } from "../demo/tools/search-logs.js";
import { createSearchResourceTool } from "../demo/tools/search-resource.js";
import type { ToolDefinition } from "./types.js";
import { createReadResultTool } from "./read-result.js";
import type { ResultStore } from "../storage/types.js";

export { OpsStore, type OpsStoreOptions } from "../demo/ops/store.js";
export { PostgresLedger } from "../demo/ops/postgres-ledger.js";
export type { ActionFilter, ActionRecord, EstateLedger } from "../demo/ops/ledger.js";
export {
  createRunbookSource,
  type RunbookSource,
  type RunbookSourceOptions,
  type RunbookStatus,
} from "./runbooks/source.js";
export type { FolderRunbookHit, RunbookProblem } from "./runbooks/types.js";
export { createSearchDocsTool, type DocsSearch } from "./search-docs.js";

/**
 * The built-in demo tools over the embedded operations dataset; adding a tool is one file and one
 * line here. `docs` backs `search_docs` instead of the store: a runbooks folder source created
 * with `demo: true`, so the folder's runbooks are ranked with the demo ones.
 */
export function createDemoTools(store: OpsStore, docs: DocsSearch = store): ToolDefinition[] {
  return [
    createSearchResourceTool(store),
    createSearchLogsTool(store),
    createSearchDocsTool(docs),
    createGetServiceMetricsTool(store),
    createRestartServiceTool(store),
    createRollbackDeployTool(store),
  ];
}

/**
 * The tools every app has, demo tools or not: `read_result` pages the stored results of the
 * thread's own calls (design §2.7).
 */
export function createThreadTools(results: Pick<ResultStore, "getResult">): ToolDefinition[] {
  return [createReadResultTool(results)];
}
