import type { McpServerConfig } from "../../config/schema.js";

/** Where MCP outages are reported; the service's `Logger` fits. */
export interface McpLogger {
  /** A server went down (logged once per outage). */
  error(message: string, error?: unknown): void;
  /** A server came back after an outage. */
  info?(message: string): void;
}

/** How one server connection behaves. */
export interface ConnectionOptions {
  /** The server's name in `mcpServers`. */
  name: string;
  config: McpServerConfig;
  /** Limit of one connection attempt (spawn or HTTP handshake, then the tool list). */
  connectTimeoutMs: number;
  /** First wait before reconnecting after a failed attempt; doubles up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Wait between MCP pings while connected (HTTP servers); undefined: no pings (stdio). */
  pingIntervalMs?: number;
  logger: McpLogger;
  /** Called when the tool list or the server's status changed. */
  onChange(): void;
}

/** A call to send. */
export interface SendCall {
  tool: string;
  args: Record<string, unknown>;
  /** Cancels the request: the SDK then sends `notifications/cancelled` to the server. */
  signal: AbortSignal;
  /** `_meta` of the request. */
  meta?: Record<string, unknown>;
}
