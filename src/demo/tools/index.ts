import { createSearchDocsTool, type DocsSearch } from "../../tools/search-docs.js";
import type { ToolDefinition } from "../../tools/types.js";
import type { OpsStore } from "../ops/store.js";
import { createGetServiceMetricsTool } from "./get-service-metrics.js";
import { createRestartServiceTool } from "./restart-service.js";
import { createRollbackDeployTool } from "./rollback-deploy.js";
import { createSearchLogsTool } from "./search-logs.js";
import { createSearchResourceTool } from "./search-resource.js";

/**
 * The built-in demo tools over the embedded operations dataset; adding a tool is one file and one
 * line here. `docs` backs `search_docs` instead of the store: a runbooks folder source given the
 * demo runbooks (`demoRunbookDocuments`), so the folder's runbooks are ranked with the demo ones.
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
