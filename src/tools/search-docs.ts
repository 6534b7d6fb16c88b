import { z } from "zod";
import type { OpsStore } from "./demo-ops/store.js";
import { READ_TIMEOUT_MS, throwIfCancelled } from "./demo-ops/tool-fields.js";
import { defineTool, type ToolDefinition } from "./types.js";

const schema = z.object({
  query: z
    .string()
    .min(1)
    .describe(
      'What to look up, in English or Chinese: symptoms, service names and error codes, e.g. "PAY-5031 DB_POOL_EXHAUSTED" or "支付服务 报错 处理".',
    ),
  limit: z.number().int().min(1).max(10).default(3).describe("Most runbooks to return (default 3, at most 10)."),
});

/** `search_docs`: runbooks with handling advice, ranked by relevance. */
export function createSearchDocsTool(store: OpsStore): ToolDefinition {
  return defineTool({
    name: "search_docs",
    description:
      "Search the runbook library (handling procedures) in English or Chinese and return the best runbooks with their " +
      "concrete handling steps, best first. Use it after search_logs to compare the errors found with the documented " +
      "advice; include the error codes in the query for the best match. Advice comes in the query's language. " +
      "Do not use it for live data (logs, metrics, status). An empty result means no runbook matched: say so, do not invent advice.",
    schema,
    readOnly: true,
    risk: "low",
    timeoutMs: READ_TIMEOUT_MS,
    async run(args, ctx) {
      throwIfCancelled(ctx.signal);
      return { query: args.query, results: store.searchDocs(args.query, args.limit) };
    },
  });
}
