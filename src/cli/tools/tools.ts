import type { ToolView } from "../../tools/tool-view.js";

const COLUMNS = [
  "TOOL",
  "KIND",
  "RISK",
  "EGRESS",
  "TRUSTED",
  "ROLES",
  "ASKS FOR",
  "TIMEOUT",
  "RATE LIMIT",
  "FALLBACK",
  "SOURCE",
  "POLICY FROM",
  "STATUS",
];

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
    tool.egress ? "yes" : "no",
    tool.trusted ? "yes" : "no",
    tool.roles === null ? "any" : tool.roles.length === 0 ? "none" : tool.roles.join(","),
    tool.askUser.map((field) => field.name).join(",") || "-",
    tool.timeoutMs % 1000 === 0 ? `${tool.timeoutMs / 1000} s` : `${tool.timeoutMs} ms`,
    limits.join(", ") || "-",
    tool.fallback.join(",") || "-",
    tool.source.server !== undefined ? `mcp:${tool.source.server}` : "built-in",
    policyOrigin(tool.policySource),
    tool.available ? "available" : `down: ${tool.unavailableReason ?? "unreachable"}`,
  ];
}

/**
 * Where `readOnly`, `risk`, `idempotent` and `egress` came from, in one short cell: their origin when they
 * share one; else the origins of the fewer fields, each naming its fields, then the one of the rest.
 */
function policyOrigin(source: ToolView["policySource"]): string {
  const fields = new Map<string, string[]>();
  for (const [field, origin] of Object.entries(source)) fields.set(origin, [...(fields.get(origin) ?? []), field]);
  const groups = [...fields];
  const rest = groups.reduce((most, group) => (group[1].length > most[1].length ? group : most));
  const named = groups.filter((group) => group !== rest).map(([origin, set]) => `${origin} (${set.join(", ")})`);
  return [...named, rest[0]].join(", ");
}
