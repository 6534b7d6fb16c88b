import type { RunOptions } from "./config.js";
import type { ToolRegistry } from "../tools/registry.js";

/** In serial step mode, the one tool step `step` (1-based) may call; undefined when every tool may be called. */
export function allowedToolForStep(options: Pick<RunOptions, "stepTools">, step: number): string | undefined {
  const tools = options.stepTools;
  if (!tools || tools.length === 0) return undefined;
  return tools[Math.min(step, tools.length) - 1];
}

/** Names of the tools bound to the model at `step`. */
export function exposedTools(options: Pick<RunOptions, "stepTools">, step: number, registry: ToolRegistry): string[] {
  const allowed = allowedToolForStep(options, step);
  return allowed === undefined ? registry.names() : registry.names().filter((name) => name === allowed);
}
