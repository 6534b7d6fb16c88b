import { z } from "zod";
import type { OpsStore } from "../ops/store.js";
import { READ_TIMEOUT_MS, throwIfCancelled } from "../ops/tool-fields.js";
import { defineTool, type ToolDefinition } from "../../tools/types.js";
import type { ResourceHit } from "../ops/views.js";

const schema = z.object({
  query: z
    .string()
    .min(1)
    .describe(
      'Words naming the service or environment, in English or Chinese, e.g. "payment", "支付", "gateway", "生产".',
    ),
  kind: z
    .enum(["service", "environment"])
    .optional()
    .describe("Only return services or only environments; omit to search both."),
});

/** `search_resource`: finds services and environments of the estate by name or description. */
export function createSearchResourceTool(store: OpsStore): ToolDefinition {
  return defineTool({
    name: "search_resource",
    description:
      "Find services or environments of the operations estate by name, in English or Chinese " +
      "(e.g. 'payment' or '支付' finds payment-service). Returns id, names, owner team, tier, status per environment " +
      "and a description. Use it to learn a service's exact id, owner or dependencies' names, or to see which services " +
      "are unhealthy. Do not use it for logs, metrics or runbooks (use search_logs, get_service_metrics, search_docs). " +
      "An empty result means nothing matched: try other words rather than guessing an id.",
    schema,
    readOnly: true,
    risk: "low",
    timeoutMs: READ_TIMEOUT_MS,
    summarize(result) {
      const { query, results } = result as { query: string; results: ResourceHit[] };
      if (results.length === 0) return [`nothing matched "${query}"`];
      return results.slice(0, 4).map((hit) => `${hit.id} (${hit.kind}, owner ${hit.owner}): ${hit.status}`);
    },
    async run(args, ctx) {
      throwIfCancelled(ctx.signal);
      return { query: args.query, results: await store.searchResources(args.query, { kind: args.kind }) };
    },
  });
}
