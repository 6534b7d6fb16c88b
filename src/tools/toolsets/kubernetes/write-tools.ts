import type { ToolDefinition } from "../../types.js";
import type { KubeContext } from "./context.js";

/** The approved writes (placeholder until they land). */
export function createWriteTools(_context: KubeContext): ToolDefinition[] {
  return [];
}
