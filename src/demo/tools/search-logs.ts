import { z } from "zod";
import { LOG_LEVELS } from "../ops/data/index.js";
import type { OpsStore } from "../ops/store.js";
import {
  ASK_ENVIRONMENT,
  environmentField,
  READ_TIMEOUT_MS,
  serviceField,
  throwIfCancelled,
} from "../ops/tool-fields.js";
import { defineTool, type ToolDefinition } from "../../tools/types.js";
import type { CodeCount } from "../ops/logs.js";
import { clip } from "../../tools/facts.js";

const schema = z.object({
  service: serviceField,
  environment: environmentField,
  level: z
    .enum(LOG_LEVELS)
    .optional()
    .describe('Only lines of this level; use "ERROR" for "errors / 报错". Omit for all levels.'),
  query: z
    .string()
    .optional()
    .describe(
      'Words or an error code every line must contain, e.g. "timeout", "超时", "PAY-5031". Omit to read all lines.',
    ),
  sinceHours: z
    .number()
    .positive()
    .max(168)
    .default(24)
    .describe("How many hours back to look (default 24, at most 168)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .describe("Most lines to return (default 20, at most 100); counts always cover every matching line."),
});

/** `search_logs`: recent log lines of one service in one environment, counted per error code. */
export function createSearchLogsTool(store: OpsStore): ToolDefinition {
  return defineTool({
    name: "search_logs",
    description:
      "Read recent log lines of ONE service in ONE environment and count them per error code. Use it when the user asks " +
      "what errors a service has, since when, or how often (e.g. '支付服务最近报错'). Returns total, byCode " +
      "[{code, level, count, lastSeen, sample}] (most frequent first) and the newest lines. Read byCode for the pattern; " +
      "then search_docs with the error codes for handling advice. Needs the environment: if the user did not name one, " +
      "leave it out and the user will be asked. Not for metrics (get_service_metrics) or finding a service (search_resource). " +
      "Zero lines is a real answer: say no matching logs were found.",
    schema,
    readOnly: true,
    risk: "low",
    askUser: { environment: ASK_ENVIRONMENT },
    timeoutMs: READ_TIMEOUT_MS,
    summarize(result) {
      const found = result as { service: string; environment: string; total: number; byCode: CodeCount[] };
      const codes = found.byCode
        .slice(0, 4)
        .map(
          (entry) =>
            `${entry.code} ×${entry.count} (${entry.level}, last ${entry.lastSeen}): ${clip(entry.sample, 60)}`,
        );
      return [`${found.service} ${found.environment}: ${found.total} matching line(s)`, ...codes];
    },
    async run(args, ctx) {
      throwIfCancelled(ctx.signal);
      const service = store.resolveService(args.service);
      const result = store.searchLogs({ ...args, service: service.id });
      return {
        service: service.id,
        environment: args.environment,
        level: args.level ?? null,
        query: args.query ?? null,
        sinceHours: args.sinceHours,
        ...result,
      };
    },
  });
}
