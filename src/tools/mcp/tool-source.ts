import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ConfigFile } from "../../config/schema.js";
import { ToolError } from "../../contracts/errors.js";
import type { ServerHealth, ToolSource } from "../source.js";
import type { ToolContext, ToolDefinition } from "../types.js";
import { McpConnection } from "./connection.js";
import type { McpLogger } from "./connection-options.js";
import { callFailure } from "./failures.js";
import { resultValue } from "./result.js";
import { IDEMPOTENCY_META, mcpToolDefinition, policyOf, qualifiedName } from "./tool-definition.js";

/** How the MCP tool source connects and times its tools; every field has a default. */
export interface McpToolSourceOptions {
  /** Per-attempt time limit of every MCP tool until a `tools` policy sets another (30 s). */
  timeoutMs?: number;
  /** Limit of one connection attempt: spawn or HTTP handshake plus the tool list (20 s). */
  connectTimeoutMs?: number;
  /** First wait before reconnecting after a failed attempt, doubling each time (1 s)... */
  backoffMs?: number;
  /** ...up to this (30 s). */
  maxBackoffMs?: number;
  /** Where outages and recoveries are logged (stderr by default). */
  logger?: McpLogger;
}

/** The tools of every configured MCP server, kept current while servers come, go and change their lists. */
export interface McpToolSource extends ToolSource {
  /** Connects to every server at once; resolves when each is up or has failed (it never rejects). */
  start(): Promise<void>;
  /** Registers a listener for a changed tool list or server status; returns its removal. */
  onChange(listener: () => void): () => void;
  /** Each server's last known status, in config order. */
  health(): ServerHealth[];
}

/** How often an HTTP server is pinged when its entry sets no `pingIntervalMs`. */
export const DEFAULT_PING_INTERVAL_MS = 15_000;

const stderrLogger: McpLogger = {
  error: (message, error) => console.error(`[opspilot] ${message}`, error ?? ""),
  info: (message) => console.error(`[opspilot] ${message}`),
};

/**
 * Builds the tool source for the config's `mcpServers`. A server that fails at start-up
 * leaves the others working: it is logged, reported by `health()` and retried in the
 * background, and its tools appear (with an `onChange`) once it answers.
 */
export function createMcpToolSource(
  servers: ConfigFile["mcpServers"],
  options: McpToolSourceOptions = {},
): McpToolSource {
  const logger = options.logger ?? stderrLogger;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        logger.error("A listener of MCP tool changes failed", error);
      }
    }
  };
  const connections = Object.entries(servers).map(
    ([name, config]) =>
      new McpConnection({
        name,
        config,
        connectTimeoutMs: options.connectTimeoutMs ?? 20_000,
        backoffMs: options.backoffMs ?? 1_000,
        maxBackoffMs: options.maxBackoffMs ?? 30_000,
        // A stdio server needs no ping: its transport sees the child exit.
        pingIntervalMs: "url" in config ? (config.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS) : undefined,
        logger,
        onChange: notify,
      }),
  );
  const timeoutMs = options.timeoutMs ?? 30_000;
  // Definitions are rebuilt only when a server's listing changed: the registry keys its cached specs on them.
  const built = new WeakMap<McpConnection["tools"], ToolDefinition[]>();
  const definitionsOf = (connection: McpConnection, server: string) => {
    let definitions = built.get(connection.tools);
    if (!definitions) {
      const trustAnnotations = servers[server]!.trustAnnotations === true;
      definitions = connection.tools.map((tool) => {
        const write = !policyOf(tool.annotations, trustAnnotations).readOnly;
        const call = (args: Record<string, unknown>, context: ToolContext) =>
          callTool({ connection, server, tool: tool.name, write, args, context });
        return mcpToolDefinition({ server, tool, trustAnnotations, timeoutMs, call });
      });
      built.set(connection.tools, definitions);
    }
    return definitions;
  };
  const names = Object.keys(servers);

  return {
    async start() {
      await Promise.all(connections.map((connection) => connection.start()));
    },
    tools() {
      const seen = new Set<string>();
      return connections.flatMap((connection, index) =>
        definitionsOf(connection, names[index]!).filter((definition) => {
          // Two server tool names can only meet after `qualifiedName` replaced characters: the first keeps it.
          if (seen.has(definition.name)) return false;
          seen.add(definition.name);
          return true;
        }),
      );
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    health() {
      return connections.map((connection, index) => ({
        server: names[index]!,
        available: connection.status === "up",
        ...(connection.status === "down" ? { reason: connection.error ?? "unreachable" } : {}),
        ...(connection.status === "down" && connection.stderr !== undefined ? { stderr: connection.stderr } : {}),
      }));
    },
    async close() {
      listeners.clear();
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

/**
 * One call: the executor's signal is forwarded (its abort makes the SDK send
 * `notifications/cancelled` with the reason), and every failure becomes a `ToolError`
 * the classifier keeps. A broken transport is dropped so the next attempt reconnects.
 */
async function callTool(options: {
  connection: McpConnection;
  server: string;
  tool: string;
  /** Not read-only by its annotations: a call cut off midway may have taken effect. */
  write: boolean;
  args: Record<string, unknown>;
  context: ToolContext;
}): Promise<unknown> {
  const { connection, server, tool, write, args, context } = options;
  const name = qualifiedName(server, tool);
  const controller = new AbortController();
  const stop = () => {
    const reason = context.signal.reason as { name?: unknown } | undefined;
    controller.abort(
      reason?.name === "TimeoutError" ? "opspilot: the call timed out" : "opspilot: the call was cancelled",
    );
  };
  if (context.signal.aborted) stop();
  context.signal.addEventListener("abort", stop, { once: true });
  let result: CallToolResult;
  try {
    result = await connection.send({
      tool,
      args,
      signal: controller.signal,
      meta: { [IDEMPOTENCY_META]: context.idempotencyKey },
    });
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (controller.signal.aborted) throw new ToolError("cancelled", `${name} was stopped.`);
    const failure = callFailure({ server, tool: name, write, error });
    if (failure.broken) connection.broken();
    throw failure.error;
  } finally {
    context.signal.removeEventListener("abort", stop);
  }
  return resultValue(name, result);
}
