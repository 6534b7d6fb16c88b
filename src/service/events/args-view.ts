import { maskValue } from "../../execution/sanitize.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { ToolDefinition } from "../../tools/types.js";

/** How a proposed call's args are shown to clients (events, GET thread); never what runs. */
export type ArgsView = (tool: string, args: unknown) => unknown;

/**
 * Shows args as validated and masked. A known tool's args go through its schema, so keys the
 * model smuggled in (`approved`, `approvedHash`) are dropped as they are before the call runs
 * or pauses; args that fail the schema keep only the keys it declares. An unknown tool's
 * args, and args that are not JSON, are shown as proposed. Either way secrets are masked:
 * the raw args stay in the checkpointed AIMessage, which only the executor reads.
 */
export function makeArgsView(registry: ToolRegistry): ArgsView {
  return (tool, args) => maskValue(validatedArgs(registry.get(tool), args));
}

function validatedArgs(tool: ToolDefinition | undefined, args: unknown): unknown {
  if (!tool || args === null || typeof args !== "object" || Array.isArray(args)) return args;
  const parsed = tool.schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const declared = new Set(Object.keys(tool.schema.shape));
  return Object.fromEntries(Object.entries(args).filter(([key]) => declared.has(key)));
}
