import type { ToolSource } from "../../tools/source.js";
import type { DependencyProbe } from "./probe.js";

/** How many lines of a failed server's stderr a probe's line quotes from each end. */
const QUOTED_LINES = 1;

/**
 * One probe per MCP server of `source`, read from its last known health (the source connects,
 * pings and reconnects on its own; a probe never spawns a server). A down server's line says
 * why and quotes the first and last lines of its stderr, where a server usually says why it exited.
 */
export function mcpProbes(source: ToolSource): DependencyProbe[] {
  return source.health().map(({ server }) => ({
    dependency: `mcp:${server}`,
    async check() {
      const health = source.health().find((entry) => entry.server === server);
      if (health?.available) {
        const tools = source.tools().filter((tool) => tool.source?.server === server).length;
        return { dependency: `mcp:${server}`, ok: true, detail: `up, ${tools} tool${tools === 1 ? "" : "s"}` };
      }
      const why = health?.reason ?? "unreachable";
      return { dependency: `mcp:${server}`, ok: false, detail: `down: ${why}${stderrQuote(health?.stderr)}` };
    },
  }));
}

/** `; stderr: "first line" … "last line"`, or nothing when the server wrote nothing. */
function stderrQuote(stderr: string | undefined): string {
  const lines = (stderr ?? "")
    .split("\n")
    .filter((line) => line.trim().length > 0 && !/^… \d+ lines? cut …$/.test(line));
  if (lines.length === 0) return "";
  const head = lines.slice(0, QUOTED_LINES);
  const tail = lines.length > QUOTED_LINES ? lines.slice(-QUOTED_LINES) : [];
  return `; stderr: ${[...head, ...tail].map((line) => JSON.stringify(line.trim())).join(" … ")}`;
}
