import type { Toolsets } from "../../config/toolsets-schema.js";
import type { ToolDefinition } from "../types.js";
import { createAlertmanagerSilencesTool } from "./alertmanager-silences.js";
import { createAlertmanagerCreateSilenceTool, createAlertmanagerExpireSilenceTool } from "./alertmanager-writes.js";
import { createToolsetClient } from "./http-client.js";
import { createPrometheusAlertsTool, createPrometheusMetricNamesTool } from "./prometheus-catalog.js";
import { createPrometheusQueryRangeTool, createPrometheusQueryTool } from "./prometheus-query.js";

/**
 * The built-in tools of the configured toolsets (design §11): Prometheus's four reads when
 * `toolsets.prometheus` is set, Alertmanager's silences when `toolsets.alertmanager` is; none otherwise.
 */
export function createToolsetTools(toolsets: Toolsets): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  if (toolsets.prometheus) {
    const client = createToolsetClient("Prometheus", toolsets.prometheus);
    tools.push(
      createPrometheusQueryTool(client),
      createPrometheusQueryRangeTool(client),
      createPrometheusAlertsTool(client),
      createPrometheusMetricNamesTool(client),
    );
  }
  if (toolsets.alertmanager) {
    const client = createToolsetClient("Alertmanager", toolsets.alertmanager);
    tools.push(
      createAlertmanagerSilencesTool(client),
      createAlertmanagerCreateSilenceTool(client),
      createAlertmanagerExpireSilenceTool(client),
    );
  }
  return tools;
}
