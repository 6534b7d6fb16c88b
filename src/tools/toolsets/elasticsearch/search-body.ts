import { z } from "zod";
import type { ElasticsearchInstance } from "../../../config/log-toolsets-schema.js";
import type { Named } from "../log-shaping/instances.js";
import type { SearchClient } from "./client.js";

/** A configured cluster with its client and the fields its logs use. */
export type SearchTarget = Named<ElasticsearchInstance> & {
  client: SearchClient;
  timeField: string;
  messageField: string;
  levelField: string;
  index: string;
};

/** The `query` and `filters` arguments: a query string and exact field values the tool turns into DSL. */
export const searchShape = {
  query: z
    .string()
    .min(1)
    .max(4_000)
    .optional()
    .describe(
      'A query string (Lucene syntax), e.g. "timeout AND service.name:payment-service" or "message:\\"connection refused\\""; default all',
    ),
  filters: z
    .record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe('Exact values fields must have, e.g. { "service.name": "payment-service", "log.level": "error" }'),
  index: z.string().min(1).max(500).optional().describe("Index pattern, e.g. logs-*; default the configured one"),
};

/** The search DSL the tool sends: the query string and filters, within the window on the time field. */
export function searchQuery(
  target: SearchTarget,
  args: { query?: string; filters?: Record<string, string | number | boolean> },
  window: { start: number; end: number },
): Record<string, unknown> {
  return {
    bool: {
      must: [args.query ? { query_string: { query: args.query } } : { match_all: {} }],
      filter: [
        { range: { [target.timeField]: { gte: window.start, lt: window.end, format: "epoch_millis" } } },
        ...Object.entries(args.filters ?? {}).map(([field, value]) => ({ term: { [field]: value } })),
      ],
    },
  };
}

/** The path of a search-API endpoint over an index pattern. */
export function indexPath(target: SearchTarget, index: string | undefined, endpoint: string): string {
  return `/${encodeURIComponent(index ?? target.index)
    .replace(/%2C/gi, ",")
    .replace(/%2A/gi, "*")}/${endpoint}`;
}

/** A field's value in a document, by a dotted path (`log.level`) or as a flat key. */
export function fieldOf(source: Record<string, unknown>, path: string): unknown {
  if (path in source) return source[path];
  let value: unknown = source;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
