import { formatKeyPath } from "../config/file.js";
import type { ConfigFile } from "../config/schema.js";
import type { Logger } from "../service/observability/logger.js";
import { closeMatches } from "../tools/edit-distance.js";
import { patternMatches } from "../tools/policy.js";
import type { ServerHealth, ToolSource } from "../tools/source.js";
import type { ToolDefinition } from "../tools/types.js";

/** A `tools` key of the config file that no known tool answers to. */
export interface ToolKeyFinding {
  /** The key as written. */
  key: string;
  /**
   * `unmatched`: it matches no tool, so its policy changes nothing; `unverified`: it may name
   * tools of MCP servers that are not up, whose tools are not known.
   */
  verdict: "unmatched" | "unverified";
  /** The servers not up whose tools it may name (empty when unmatched). */
  servers: string[];
  /** A key that would match, when this one looks like a typo of it. */
  suggestion?: string;
}

/** What the keys are checked against. */
export interface ToolKeyCheck {
  /** The config file's `tools` keys. */
  keys: readonly string[];
  /** Every tool name before the policy applied: a key with `enabled: false` still matched its tool. */
  tools: readonly string[];
  /** Every configured MCP server; only those `available` have listed their tools. */
  servers: readonly ServerHealth[];
}

/** The parts the app's tool list is built from. */
export interface ToolCatalogParts {
  config: ConfigFile;
  /** The tools of this process, before the policy applied. */
  builtIn: readonly ToolDefinition[];
  /** The MCP tool sources, with their current tools and health. */
  sources: readonly ToolSource[];
}

/**
 * Every `tools` key or glob that matches no tool, in file order. A key that could name a tool
 * of a server that is not up is `unverified` rather than `unmatched`; an exact name close to a
 * tool's (`restart_servce`), or a glob whose server part is close to a server's (`k9s__*`),
 * gets that one as a suggestion.
 */
export function checkToolKeys(check: ToolKeyCheck): ToolKeyFinding[] {
  const down = check.servers.filter((server) => !server.available).map((server) => server.server);
  return check.keys.flatMap((key): ToolKeyFinding[] => {
    if (check.tools.some((tool) => patternMatches(key, tool))) return [];
    const servers = down.filter((server) => mayName(key, server));
    if (servers.length > 0) return [{ key, verdict: "unverified", servers }];
    const suggestion = suggestionFor(key, check);
    return [{ key, verdict: "unmatched", servers: [], ...(suggestion !== undefined ? { suggestion } : {}) }];
  });
}

/** The check of an app's `tools` keys against its built-in tools and what its sources list now. */
export function toolKeyCheckOf(parts: ToolCatalogParts): ToolKeyCheck {
  return {
    keys: Object.keys(parts.config.tools),
    tools: [...parts.builtIn, ...parts.sources.flatMap((source) => source.tools())].map((tool) => tool.name),
    servers: parts.sources.flatMap((source) => source.health()),
  };
}

/** One line on a finding: `tools.restart_servce matches no tool, so it changes nothing; did you mean restart_service?` */
export function describeToolKey(finding: ToolKeyFinding): string {
  const path = formatKeyPath(["tools", finding.key]);
  if (finding.verdict === "unverified") {
    const servers = finding.servers.join(", ");
    return `${path} is not checked: MCP server${finding.servers.length > 1 ? "s" : ""} ${servers} ${finding.servers.length > 1 ? "are" : "is"} not up`;
  }
  const hint = finding.suggestion !== undefined ? `; did you mean ${finding.suggestion}?` : "";
  return `${path} matches no tool, so it changes nothing${hint}`;
}

/**
 * Logs each `tools` key that matches no tool, at start-up and again whenever a tool source
 * changes: a key that may name tools of a server not up yet is checked once that server has
 * listed them (the server's outage is logged on its own). Each key is told once.
 */
export function watchToolKeys(parts: ToolCatalogParts & { logger: Logger }): void {
  const told = new Set<string>();
  const check = () => {
    for (const finding of checkToolKeys(toolKeyCheckOf(parts))) {
      if (finding.verdict !== "unmatched" || told.has(finding.key)) continue;
      told.add(finding.key);
      parts.logger.error(`Config file: ${describeToolKey(finding)}`);
    }
  };
  check();
  for (const source of parts.sources) source.onChange(check);
}

/** Whether `key` could match a tool of `server` (named `<server>__<tool>`), judged by its literal start. */
function mayName(key: string, server: string): boolean {
  const prefix = `${server}__`;
  const literal = key.split(/[*?]/, 1)[0]!;
  return literal.startsWith(prefix) || (literal.length < key.length && prefix.startsWith(literal));
}

/** The closest key that would match something, within one typo per four characters. */
function suggestionFor(key: string, check: ToolKeyCheck): string | undefined {
  return closeMatches(key, /[*?]/.test(key) ? serverGlobs(key, check) : check.tools)[0];
}

/** `k9s__*` with each configured server in place of `k9s`, keeping those that match a tool. */
function serverGlobs(key: string, check: ToolKeyCheck): string[] {
  const split = key.indexOf("__");
  if (split <= 0 || /[*?]/.test(key.slice(0, split))) return [];
  return check.servers
    .map((server) => server.server + key.slice(split))
    .filter((candidate) => check.tools.some((tool) => patternMatches(candidate, tool)));
}
