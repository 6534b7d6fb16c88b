import type { Turn } from "./turn.js";

/**
 * The demo model plans with the built-in tool names; the same tools loaded back from an MCP
 * server (`npm run mcp`) are bound as `<server>__<name>`. This maps between the two, so the
 * model plans, reads observations and answers alike either way. A bare name bound directly wins.
 */
export class BoundToolNames {
  private readonly boundByBare = new Map<string, string>();

  constructor(bound: readonly string[]) {
    for (const name of bound) {
      const separator = name.indexOf("__");
      const bare = separator > 0 ? name.slice(separator + 2) : name;
      if (bare === name || !this.boundByBare.has(bare)) this.boundByBare.set(bare, name);
    }
  }

  /** The bare names the planner knows the bound tools by. */
  bare(): Set<string> {
    return new Set(this.boundByBare.keys());
  }

  /** The bound name to propose for a bare one. */
  bound(bare: string): string {
    return this.boundByBare.get(bare) ?? bare;
  }

  /** The turn with every call named by its bare name. */
  bareTurn(turn: Turn): Turn {
    const bareOf = new Map([...this.boundByBare].map(([bare, bound]) => [bound, bare]));
    return { ...turn, calls: turn.calls.map((call) => ({ ...call, tool: bareOf.get(call.tool) ?? call.tool })) };
  }
}
