import { z } from "zod";
import { ElasticsearchToolsetSchema, LokiToolsetSchema } from "./log-toolsets-schema.js";

/** One monitoring server a built-in toolset talks to over HTTP. */
export const ToolsetEndpointSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .describe("Base URL of the server, e.g. http://prometheus:9090 (a path prefix is kept)"),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Headers sent with every request, e.g. { "Authorization": "Bearer ${PROM_TOKEN}" }'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(120_000)
      .optional()
      .describe("How long one request may take before the call fails as a timeout (default 10000)"),
  })
  .strict();

/** `toolsets`: the built-in tools for the monitoring stack, each registered only when its server is named. */
export const ToolsetsSchema = z
  .object({
    prometheus: ToolsetEndpointSchema.optional().describe(
      "Prometheus's HTTP API: prometheus_query, prometheus_query_range, prometheus_alerts, prometheus_metric_names",
    ),
    alertmanager: ToolsetEndpointSchema.optional().describe(
      "Alertmanager's API v2: alertmanager_silences, alertmanager_create_silence, alertmanager_expire_silence",
    ),
    loki: LokiToolsetSchema.optional(),
    elasticsearch: ElasticsearchToolsetSchema.optional(),
  })
  .strict();

/** One configured toolset server. */
export type ToolsetEndpoint = z.infer<typeof ToolsetEndpointSchema>;
/** The configured toolsets. */
export type Toolsets = z.infer<typeof ToolsetsSchema>;
