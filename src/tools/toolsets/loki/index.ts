import type { LokiInstance, LokiToolset } from "../../../config/log-toolsets-schema.js";
import type { ToolDefinition } from "../../types.js";
import { instancesOf } from "../log-shaping/instances.js";
import { lokiClient } from "./api.js";
import { createLokiLabelsTool } from "./labels.js";
import { createLokiMetricQueryTool } from "./metric-query.js";
import { createLokiQueryTool, type LokiTarget } from "./query.js";

/** Loki's three reads over the configured instances (one, or several picked by the `instance` argument). */
export function createLokiTools(config: LokiToolset): ToolDefinition[] {
  const targets: LokiTarget[] = instancesOf<LokiInstance>(config).map((instance) => ({
    ...instance,
    client: lokiClient(instance),
  }));
  return [createLokiQueryTool(targets), createLokiMetricQueryTool(targets), createLokiLabelsTool(targets)];
}
