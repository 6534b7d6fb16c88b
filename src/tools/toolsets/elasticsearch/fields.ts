import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../types.js";
import { instanceShape, pickInstance, sourceName } from "../log-shaping/instances.js";
import { indexPath, type SearchTarget } from "./search-body.js";

/** Most fields one answer lists. */
export const MAX_FIELDS = 150;

interface Mapping {
  type?: string;
  properties?: Record<string, Mapping>;
  fields?: Record<string, Mapping>;
}

/** `elasticsearch_fields`: the fields of an index pattern's mappings and their types. */
export function createElasticsearchFieldsTool(targets: readonly SearchTarget[]): ToolDefinition {
  return defineTool({
    name: "elasticsearch_fields",
    description:
      "List the fields of the log indices in Elasticsearch or OpenSearch with their types (from _mapping), to " +
      "know what to filter and aggregate on: keyword fields for filters and elasticsearch_aggregate, text fields " +
      `for the query string. Narrow with contains. At most ${MAX_FIELDS}; total counts them all.`,
    schema: z.object({
      index: z.string().min(1).max(500).optional().describe("Index pattern, e.g. logs-*; default the configured one"),
      contains: z.string().min(1).max(200).optional().describe("Only fields whose name holds this (case-insensitive)"),
      ...instanceShape(
        targets.map((target) => target.name),
        "cluster",
      ),
    }),
    readOnly: true,
    risk: "low",
    timeoutMs: Math.max(...targets.map((target) => target.client.timeoutMs)) + 1_000,
    summarize(result) {
      const found = result as { total: number; fields: Array<{ field: string; type: string }> };
      return [
        `${found.total} field(s): ${found.fields
          .slice(0, 10)
          .map((item) => `${item.field} (${item.type})`)
          .join(", ")}`,
      ];
    },
    async run(args, ctx) {
      const target = pickInstance(targets, (args as { instance?: string }).instance);
      const body = (await target.client.request({
        method: "GET",
        path: indexPath(target, args.index, "_mapping"),
        signal: ctx.signal,
      })) as Record<string, { mappings?: Mapping }>;
      const types = new Map<string, Set<string>>();
      for (const index of Object.values(body ?? {})) flatten(index.mappings?.properties ?? {}, "", types);
      const needle = args.contains?.toLowerCase();
      const fields = [...types]
        .filter(([field]) => !needle || field.toLowerCase().includes(needle))
        .sort(([left], [right]) => left.localeCompare(right))
        .map(([field, kinds]) => ({ field, type: [...kinds].join("|") }));
      return {
        source: sourceName("Elasticsearch", target, targets.length),
        indices: Object.keys(body ?? {}).length,
        total: fields.length,
        omitted: Math.max(0, fields.length - MAX_FIELDS),
        fields: fields.slice(0, MAX_FIELDS),
      };
    },
  });
}

/** Every leaf field of a mapping, dotted (`log.level`), and multi-fields (`message.keyword`). */
function flatten(properties: Record<string, Mapping>, prefix: string, into: Map<string, Set<string>>): void {
  for (const [name, mapping] of Object.entries(properties)) {
    const path = `${prefix}${name}`;
    if (mapping.properties) flatten(mapping.properties, `${path}.`, into);
    if (mapping.type) into.set(path, (into.get(path) ?? new Set()).add(mapping.type));
    for (const [sub, inner] of Object.entries(mapping.fields ?? {}))
      if (inner.type) into.set(`${path}.${sub}`, (into.get(`${path}.${sub}`) ?? new Set()).add(inner.type));
  }
}
