import { createGetServiceMetricsTool } from "./get-service-metrics.js";
import type { OpsStore } from "./demo-ops/store.js";
import { createRestartServiceTool } from "./restart-service.js";
import { createRollbackDeployTool } from "./rollback-deploy.js";
import { createSearchDocsTool } from "./search-docs.js";
import { createSearchLogsTool } from "./search-logs.js";
import { createSearchResourceTool } from "./search-resource.js";
import type { ToolDefinition } from "./types.js";

export { OpsStore, type OpsStoreOptions } from "./demo-ops/store.js";

/** The built-in demo tools over the embedded operations dataset; adding a tool is one file and one line here. */
export function createDemoTools(store: OpsStore): ToolDefinition[] {
  return [
    createSearchResourceTool(store),
    createSearchLogsTool(store),
    createSearchDocsTool(store),
    createGetServiceMetricsTool(store),
    createRestartServiceTool(store),
    createRollbackDeployTool(store),
  ];
}
