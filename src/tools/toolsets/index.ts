import type { Toolsets } from "../../config/toolsets-schema.js";
import type { ToolDefinition } from "../types.js";
import { createAlertmanagerSilencesTool } from "./alertmanager-silences.js";
import { createAlertmanagerCreateSilenceTool, createAlertmanagerExpireSilenceTool } from "./alertmanager-writes.js";
import { createElasticsearchTools } from "./elasticsearch/index.js";
import { createGithubIssueTool } from "./github/create-issue.js";
import { createToolsetClient } from "./http-client.js";
import { createLokiTools } from "./loki/index.js";
import { createPrometheusAlertsTool, createPrometheusMetricNamesTool } from "./prometheus-catalog.js";
import { createPrometheusQueryRangeTool, createPrometheusQueryTool } from "./prometheus-query.js";

/**
 * The built-in tools of the configured toolsets (design §11): Prometheus's four reads when
 * `toolsets.prometheus` is set, Alertmanager's silences when `toolsets.alertmanager` is, Loki's and
 * Elasticsearch's log reads when `toolsets.loki` / `toolsets.elasticsearch` are; none otherwise.
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
  if (toolsets.loki) tools.push(...createLokiTools(toolsets.loki));
  if (toolsets.elasticsearch) tools.push(...createElasticsearchTools(toolsets.elasticsearch));
  if (toolsets.github)
    tools.push(createGithubIssueTool(createToolsetClient("GitHub", toolsets.github), toolsets.github));
  return tools;
}
