import type { ToolView } from "../tools/tool-view.js";

const COLUMNS = ["TOOL", "KIND", "RISK", "ROLES", "ASKS FOR", "TIMEOUT", "RATE LIMIT", "FALLBACK", "SOURCE", "STATUS"];

/**
 * `npm run ask -- --tools`: the tools with their effective policy, one row each, the same
 * facts `GET /api/tools` serves; columns are padded to line up.
 */
export function formatToolTable(tools: readonly ToolView[]): string[] {
  if (tools.length === 0) return ["No tools: the config file disables them all."];
  const rows = [COLUMNS, ...tools.map(toolRow)];
  const widths = COLUMNS.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd(),
  );
}

function toolRow(tool: ToolView): string[] {
  const limits = [
    tool.rateLimit?.perMinute !== undefined ? `${tool.rateLimit.perMinute}/min` : undefined,
    tool.rateLimit?.perUserPerMinute !== undefined ? `${tool.rateLimit.perUserPerMinute}/min per user` : undefined,
  ].filter((limit) => limit !== undefined);
  return [
    tool.name,
    tool.readOnly ? "read" : tool.idempotent ? "write (idempotent)" : "write",
    tool.risk,
    tool.roles === null ? "any" : tool.roles.length === 0 ? "none" : tool.roles.join(","),
    tool.askUser.map((field) => field.name).join(",") || "-",
    tool.timeoutMs % 1000 === 0 ? `${tool.timeoutMs / 1000} s` : `${tool.timeoutMs} ms`,
    limits.join(", ") || "-",
    tool.fallback.join(",") || "-",
    tool.source.server !== undefined ? `mcp:${tool.source.server}` : "built-in",
    tool.available ? "available" : `down: ${tool.unavailableReason ?? "unreachable"}`,
  ];
}
