import type { ToolRegistry } from "../tools/registry.js";
import type { CallOutcome } from "./call-tool.js";

/**
 * The cost units a batch's calls spent: each attempt that reached a tool declaring `costUnits`
 * spends them once, so a retried call counts twice and a call refused before the tool none.
 */
export function spentCostUnits(
  registry: Pick<ToolRegistry, "get">,
  outcomes: ReadonlyMap<string, CallOutcome>,
  toolOf: (callId: string) => string,
): number {
  let units = 0;
  for (const [callId, outcome] of outcomes) {
    const perCall = registry.get(toolOf(callId))?.costUnits;
    if (perCall !== undefined) units += perCall * outcome.attempts;
  }
  return units;
}
