import { z } from "zod";
import { throwIfCancelled } from "./cancelled.js";
import { defineTool, type ToolDefinition } from "./types.js";
import { clip } from "./facts.js";

/** Per-attempt time limit: the index is in memory, so a search that takes longer is stuck. */
const SEARCH_TIMEOUT_MS = 5_000;

const schema = z.object({
  query: z
    .string()
    .min(1)
    .describe(
      'What to look up, in English or Chinese: symptoms, service names and error codes, e.g. "PAY-5031 DB_POOL_EXHAUSTED" or "支付服务 报错 处理".',
    ),
  limit: z.number().int().min(1).max(10).default(3).describe("Most runbooks to return (default 3, at most 10)."),
});

/** What `search_docs` searches: a runbooks folder (with the documents ranked beside it), or the demo's runbooks. */
export interface DocsSearch {
  /** Runbooks (or runbook sections) for a query in English or Chinese, best first. */
  searchDocs(query: string, limit: number): readonly unknown[];
}

/** `search_docs`: runbooks with handling advice, ranked by relevance. */
export function createSearchDocsTool(docs: DocsSearch): ToolDefinition {
  return defineTool({
    name: "search_docs",
    description:
      "Search the runbook library (handling procedures) in English or Chinese and return the best runbooks with their " +
      "concrete handling steps, best first. Use it after search_logs to compare the errors found with the documented " +
      "advice; include the error codes in the query for the best match. Advice comes in the query's language. " +
      "Do not use it for live data (logs, metrics, status). An empty result means no runbook matched: say so, do not invent advice. " +
      "A result with a path is a section of the team's own runbooks: cite its path and heading.",
    schema,
    readOnly: true,
    risk: "low",
    timeoutMs: SEARCH_TIMEOUT_MS,
    summarize(result) {
      const { query, results } = result as { query: string; results: Array<Record<string, unknown>> };
      if (results.length === 0) return [`no runbook matched "${clip(query, 60)}"`];
      return results.slice(0, 4).map((hit) => {
        const advice = Array.isArray(hit.advice) ? String(hit.advice[0] ?? "") : String(hit.heading ?? "");
        return `${String(hit.id)} ${String(hit.title)}${advice ? `: ${clip(advice, 70)}` : ""}`;
      });
    },
    async run(args, ctx) {
      throwIfCancelled(ctx.signal);
      return { query: args.query, results: docs.searchDocs(args.query, args.limit) };
    },
  });
}
