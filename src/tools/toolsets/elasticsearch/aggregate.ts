import { z } from "zod";
import { clip } from "../../facts.js";
import { defineTool, type ToolDefinition } from "../../types.js";
import { instanceShape, pickInstance, sourceName } from "../log-shaping/instances.js";
import { endAfterStart, windowOf, windowShape } from "../log-shaping/window.js";
import { indexPath, searchQuery, searchShape, type SearchTarget } from "./search-body.js";

/** Most top values one aggregation lists. */
export const MAX_BUCKETS = 50;

interface TermsAggregation {
  sum_other_doc_count?: number;
  buckets?: Array<{ key?: unknown; key_as_string?: string; doc_count?: number }>;
}

/** `elasticsearch_aggregate`: the top values of a field among matching documents, with their counts. */
export function createElasticsearchAggregateTool(targets: readonly SearchTarget[]): ToolDefinition {
  return defineTool({
    name: "elasticsearch_aggregate",
    description:
      "Count matching log documents by the values of one field in Elasticsearch or OpenSearch (a terms " +
      "aggregation): which services, pods, error codes or levels dominate a window. Returns the top values with " +
      `their counts (at most ${MAX_BUCKETS}), the total matching and how many documents have other values. Use a ` +
      'keyword field (e.g. "service.name", "log.level", "kubernetes.pod.name"; elasticsearch_fields lists them).',
    schema: z
      .object({
        field: z.string().min(1).max(300).describe('A keyword field, e.g. "service.name" or "log.level"'),
        size: z.number().int().min(1).max(MAX_BUCKETS).default(10).describe("How many top values (default 10)"),
        ...searchShape,
        ...windowShape,
        ...instanceShape(
          targets.map((target) => target.name),
          "cluster",
        ),
      })
      .superRefine(endAfterStart),
    readOnly: true,
    risk: "low",
    timeoutMs: Math.max(...targets.map((target) => target.client.timeoutMs)) + 1_000,
    summarize(result) {
      const found = result as { field: string; total: number; values: Array<{ value: string; count: number }> };
      return [
        `${found.total} matching by ${found.field}: ${found.values
          .slice(0, 6)
          .map((item) => `${clip(item.value, 60)} ${item.count}`)
          .join(", ")}`,
      ];
    },
    async run(args, ctx) {
      const target = pickInstance(targets, (args as { instance?: string }).instance);
      const window = windowOf(args);
      const body = (await target.client.request({
        method: "POST",
        path: indexPath(target, args.index, "_search"),
        body: {
          size: 0,
          track_total_hits: true,
          query: searchQuery(target, args, window),
          aggs: { top: { terms: { field: args.field, size: args.size } } },
        },
        signal: ctx.signal,
      })) as { hits?: { total?: { value?: number } | number }; aggregations?: { top?: TermsAggregation } };
      const total = body.hits?.total;
      const top = body.aggregations?.top ?? {};
      return {
        source: sourceName("Elasticsearch", target, targets.length),
        field: args.field,
        start: new Date(window.start).toISOString(),
        end: new Date(window.end).toISOString(),
        total: typeof total === "number" ? total : (total?.value ?? 0),
        values: (top.buckets ?? []).map((bucket) => ({
          value: clip(bucket.key_as_string ?? String(bucket.key), 200),
          count: bucket.doc_count ?? 0,
        })),
        otherCount: top.sum_other_doc_count ?? 0,
      };
    },
  });
}
