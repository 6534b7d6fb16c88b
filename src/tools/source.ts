import type { ToolDefinition } from "./types.js";

/** How one server behind a tool source is doing, as its last check saw it. */
export interface ServerHealth {
  /** Server name (the `source.server` of its tools). */
  server: string;
  /** Whether its tools can be called now. */
  available: boolean;
  /** Why not, when unavailable: one line a user can act on. */
  reason?: string;
  /**
   * What a stdio server wrote to stderr before it failed: its first and last lines, the cut
   * stated. For doctor and the log only (it may name paths): `/healthz` never serves it.
   */
  stderr?: string;
}

/**
 * Tools that come from outside the process (MCP servers), given to the composition root
 * already connected. The root applies the config's policy to `tools()`, hides the tools of
 * servers `health()` reports down, and reads both again whenever `onChange` fires.
 */
export interface ToolSource {
  /** The current tool list; each tool names its server in `source.server`. */
  tools(): readonly ToolDefinition[];
  /** Registers a listener called when the tool list or a server's health changed. */
  onChange(listener: () => void): void;
  /** Last known health of each server, read synchronously (no probing here). */
  health(): readonly ServerHealth[];
  /** Disconnects; called once when the app closes. */
  close(): Promise<void>;
}
