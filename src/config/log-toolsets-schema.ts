import { z } from "zod";
import { endpointFields } from "./toolset-endpoint-schema.js";

/** A log server's address, headers and time limit. */
const endpoint = endpointFields({ url: "http://loki:3100", token: "LOKI_TOKEN" });

/** What every log backend's instance adds to a toolset server: the read budget and the alert's query. */
const logReads = {
  maxLines: z
    .number()
    .int()
    .min(1)
    .max(200_000)
    .optional()
    .describe("Most log lines one call reads and folds into patterns (default 5000); the model may ask for fewer"),
  maxBytes: z
    .number()
    .int()
    .min(500)
    .max(100_000)
    .optional()
    .describe(
      "Most bytes of one call's result that reach the model (default 3500, and never more than the observation cap)",
    ),
};

const instanceName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, { error: "must be lowercase letters, digits, '_' or '-', starting with a letter" })
  .describe("The instance's name, which the model picks with the tools' instance argument");

/** One Loki server: its HTTP API, the tenant it reads and the query an alert's investigation starts with. */
export const LokiInstanceSchema = z
  .object({
    ...endpoint,
    tenant: z.string().min(1).optional().describe("Sent as X-Scope-OrgID, for a multi-tenant Loki"),
    alertQuery: z
      .string()
      .min(1)
      .optional()
      .describe(
        "LogQL an alert's investigation reads first, with $service, $namespace, $app, $job (or any $label) from the " +
          'alert\'s labels, e.g. {namespace="$namespace", app="$service"} |= "error"; by default a selector of those labels and |~ "(?i)error"',
      ),
    ...logReads,
  })
  .strict();

/** One Elasticsearch or OpenSearch cluster: its search API, the index pattern and the fields logs use. */
export const ElasticsearchInstanceSchema = z
  .object({
    ...endpoint,
    index: z.string().min(1).optional().describe('Index pattern searched when the model names none (default "*")'),
    timeField: z.string().min(1).optional().describe('The field holding each line\'s time (default "@timestamp")'),
    messageField: z.string().min(1).optional().describe('The field holding the log line (default "message")'),
    levelField: z.string().min(1).optional().describe('The field holding the level (default "log.level")'),
    alertQuery: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Query string an alert's investigation reads first, with $service, $namespace, $app, $job (or any $label) " +
          'from the alert\'s labels (default service.name:"$service")',
      ),
    ...logReads,
  })
  .strict();

/** Refuses a list that names one instance twice. */
function namedOnce(list: ReadonlyArray<{ name: string }>, issues: z.RefinementCtx): void {
  const seen = new Set<string>();
  list.forEach((item, index) => {
    if (seen.has(item.name))
      issues.addIssue({ code: "custom", path: [index, "name"], message: `"${item.name}" is named twice` });
    seen.add(item.name);
  });
}

/** `toolsets.loki`: Loki's HTTP API, one server or several named ones. */
export const LokiToolsetSchema = z
  .union([
    LokiInstanceSchema,
    z
      .array(LokiInstanceSchema.extend({ name: instanceName }))
      .min(1)
      .superRefine(namedOnce),
  ])
  .describe(
    "Grafana Loki's HTTP API: loki_query, loki_metric_query, loki_labels. One server, or a list of them each with a name",
  );

/** `toolsets.elasticsearch`: the search API of Elasticsearch or OpenSearch, one cluster or several named ones. */
export const ElasticsearchToolsetSchema = z
  .union([
    ElasticsearchInstanceSchema,
    z
      .array(ElasticsearchInstanceSchema.extend({ name: instanceName }))
      .min(1)
      .superRefine(namedOnce),
  ])
  .describe(
    "Elasticsearch's or OpenSearch's search API: elasticsearch_search, elasticsearch_aggregate, elasticsearch_fields. " +
      "One cluster, or a list of them each with a name",
  );

/** One configured Loki server. */
export type LokiInstance = z.infer<typeof LokiInstanceSchema>;
/** One configured Elasticsearch or OpenSearch cluster. */
export type ElasticsearchInstance = z.infer<typeof ElasticsearchInstanceSchema>;
/** `toolsets.loki` as configured. */
export type LokiToolset = z.infer<typeof LokiToolsetSchema>;
/** `toolsets.elasticsearch` as configured. */
export type ElasticsearchToolset = z.infer<typeof ElasticsearchToolsetSchema>;
