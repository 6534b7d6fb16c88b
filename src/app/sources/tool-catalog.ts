import type { ConfigFile } from "../../config/schema.js";
import type { Logger } from "../../service/observability/logger.js";
import { applyToolPolicy } from "../../tools/policy.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { McpToolSource } from "../../tools/mcp/index.js";
import type { ToolSource } from "../../tools/source.js";
import type { ToolDefinition } from "../../tools/types.js";
import { startKubernetesSource } from "./kubernetes-source.js";

/** What the registry is built from. */
export interface ToolCatalogOptions {
  /** The config file (its `tools` policies apply to every tool). */
  config: ConfigFile;
  /** Tools of this process (the demo tools unless `demo: false`). */
  builtIn: readonly ToolDefinition[];
  /** Tools from outside (MCP servers), already connected. */
  sources: readonly ToolSource[];
  /** Where a failed refresh is reported. */
  logger: Logger;
}

/**
 * The registry the loop uses, with the config's policy applied to every tool, and kept
 * current: when a source reports a change (a new tool list, a server down or back), the
 * list is rebuilt with the same policy and the availability of each server is updated.
 */
export function buildToolRegistry(options: ToolCatalogOptions): ToolRegistry {
  const { config, builtIn, sources, logger } = options;
  const collect = () => applyToolPolicy([...builtIn, ...sources.flatMap((source) => source.tools())], config.tools);
  const registry = new ToolRegistry(collect());
  const refreshHealth = () => {
    for (const source of sources) {
      for (const server of source.health()) {
        if (server.available) registry.setAvailable(server.server);
        else registry.setUnavailable(server.server, server.reason ?? "unreachable");
      }
    }
  };
  refreshHealth();
  for (const source of sources) {
    source.onChange(() => {
      try {
        registry.replaceTools(collect());
        refreshHealth();
      } catch (error) {
        // The previous list stays in use: a bad refresh must not take the working tools away.
        logger.error("Could not refresh the tool list", error);
      }
    });
  }
  return registry;
}

/**
 * Connects the config's `mcpServers` (nothing when there are none). Resolves once every
 * server is up or has failed; a failed server is reported by its source's health and
 * retried in the background, so start-up never fails on it.
 */
export async function connectToolSources(config: ConfigFile, logger: Logger): Promise<ToolSource[]> {
  const kubernetes = startKubernetesSource(config, logger);
  await kubernetes?.started;
  const own = kubernetes ? [kubernetes.source] : [];
  if (Object.keys(config.mcpServers).length === 0) return own;
  const { createMcpToolSource } = await loadMcp();
  const source = createMcpToolSource(config.mcpServers, { logger });
  await source.start();
  return [...own, source];
}

/**
 * The same sources for a host that cannot wait (the LangGraph server's synchronous graph
 * factory): connecting goes on in the background and the tools appear through `onChange`.
 */
export function startToolSources(config: ConfigFile, logger: Logger): ToolSource[] {
  const kubernetes = startKubernetesSource(config, logger);
  const own = kubernetes ? [kubernetes.source] : [];
  if (Object.keys(config.mcpServers).length === 0) return own;
  return [...own, deferredSource(config.mcpServers, logger)];
}

/** The MCP client (SDK, transports, schema validator) loads only when the config names servers: most processes never need it. */
function loadMcp() {
  return import("../../tools/mcp/index.js");
}

/**
 * A source whose MCP client is loaded in the background, then started: until then it has no
 * tools and reports every server unavailable, as a source that is still connecting does.
 */
function deferredSource(servers: ConfigFile["mcpServers"], logger: Logger): ToolSource {
  const listeners: Array<() => void> = [];
  let source: McpToolSource | undefined;
  let closed = false;
  const created = loadMcp().then(
    ({ createMcpToolSource }) => {
      if (closed) return;
      source = createMcpToolSource(servers, { logger });
      for (const listener of listeners) source.onChange(listener);
      source.start().catch((error: unknown) => logger.error("MCP servers failed to start", error));
    },
    (error: unknown) => logger.error("MCP servers failed to start", error),
  );
  return {
    tools: () => source?.tools() ?? [],
    onChange(listener) {
      listeners.push(listener);
      source?.onChange(listener);
    },
    health: () => source?.health() ?? Object.keys(servers).map((server) => ({ server, available: false })),
    async close() {
      closed = true;
      await created;
      await source?.close();
    },
  };
}

/** Closes every tool source, whatever each one's close does. */
export async function closeSources(sources: readonly ToolSource[]): Promise<void> {
  await Promise.allSettled(sources.map((source) => source.close()));
}
