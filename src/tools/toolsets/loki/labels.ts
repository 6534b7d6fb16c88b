import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../types.js";
import { instanceShape, pickInstance, sourceName } from "../log-shaping/instances.js";
import { windowOf, windowShape } from "../log-shaping/window.js";
import { lokiData, nanoseconds } from "./api.js";
import type { LokiTarget } from "./query.js";

/** Most names or values an observation lists. */
export const MAX_LABEL_VALUES = 100;

/** `loki_labels`: the label names Loki holds, or one label's values, to write a stream selector. */
export function createLokiLabelsTool(targets: readonly LokiTarget[]): ToolDefinition {
  return defineTool({
    name: "loki_labels",
    description:
      "Find how to select logs in Loki: the label names of the streams in a window, or with label the values of " +
      'that label (e.g. label "app" or "namespace"), optionally only of the streams a selector matches ' +
      `(match, e.g. {namespace="payments"}). At most ${MAX_LABEL_VALUES}; total counts them all. Use it before ` +
      "loki_query when you do not know the labels.",
    schema: z.object({
      label: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "must be a label name" })
        .optional()
        .describe("A label whose values to list; omit for the label names"),
      match: z.string().min(1).max(1_000).optional().describe('A stream selector, e.g. {namespace="payments"}'),
      ...windowShape,
      ...instanceShape(
        targets.map((target) => target.name),
        "Loki",
      ),
    }),
    readOnly: true,
    risk: "low",
    timeoutMs: Math.max(...targets.map((target) => target.client.timeoutMs)) + 1_000,
    summarize(result) {
      const found = result as { label: string; total: number; values: string[] };
      return [`${found.total} ${found.label}: ${found.values.slice(0, 8).join(", ")}`];
    },
    async run(args, ctx) {
      const target = pickInstance(targets, (args as { instance?: string }).instance);
      const window = windowOf(args);
      const path = args.label ? `/loki/api/v1/label/${encodeURIComponent(args.label)}/values` : "/loki/api/v1/labels";
      const data = await lokiData(target.client, {
        path,
        query: { start: nanoseconds(window.start), end: nanoseconds(window.end), query: args.match },
        signal: ctx.signal,
      });
      const values = ((data ?? []) as string[]).slice().sort();
      return {
        source: sourceName("Loki", target, targets.length),
        label: args.label ? `values of ${args.label}` : "label names",
        total: values.length,
        omitted: Math.max(0, values.length - MAX_LABEL_VALUES),
        values: values.slice(0, MAX_LABEL_VALUES),
      };
    },
  });
}
