import { z } from "zod";
import type { Role } from "../contracts/user.js";
import type { ToolDefinition } from "./types.js";

/** A tool as bound to a chat model: OpenAI function format with JSON Schema from zod. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A tool hidden from the model because the server behind it is down. */
export interface UnavailableTool {
  /** Tool name. */
  name: string;
  /** Its server. */
  server: string;
  /** Why the server is down, as its health check said. */
  reason: string;
}

/**
 * The tools one graph can call, by name, with their model-facing specs computed once. The
 * list can be replaced while runs go on (an MCP server's `tools/list_changed`), and tools
 * whose server is down are reported unavailable so the model is not offered them.
 */
export class ToolRegistry {
  private byName = new Map<string, ToolDefinition>();
  private readonly specByName = new Map<string, { tool: ToolDefinition; spec: ToolSpec }>();
  private readonly downServers = new Map<string, string>();

  constructor(tools: readonly ToolDefinition[]) {
    this.replaceTools(tools);
  }

  /**
   * Swaps the whole tool list at once. A spec is recomputed only for a tool whose name,
   * description, schema or parameters changed: JSON Schema conversion is the costly part of binding.
   */
  replaceTools(tools: readonly ToolDefinition[]): void {
    const byName = new Map<string, ToolDefinition>();
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new Error(`Duplicate tool name: ${tool.name}`);
      byName.set(tool.name, tool);
    }
    for (const [name, cached] of this.specByName) {
      const next = byName.get(name);
      if (
        !next ||
        next.schema !== cached.tool.schema ||
        next.parameters !== cached.tool.parameters ||
        next.description !== cached.tool.description
      )
        this.specByName.delete(name);
    }
    for (const tool of byName.values()) {
      if (!this.specByName.has(tool.name)) this.specByName.set(tool.name, { tool, spec: toSpec(tool) });
    }
    this.byName = byName;
  }

  /** The definition of a tool, or undefined for an unknown name. */
  get(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** Names of every tool, in registration order, available or not. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Every tool definition, in registration order. */
  tools(): ToolDefinition[] {
    return [...this.byName.values()];
  }

  /** Model-facing specs of the named tools (all tools when omitted). */
  specs(names?: readonly string[]): ToolSpec[] {
    const wanted = names ?? this.names();
    return wanted.flatMap((name) => {
      const cached = this.specByName.get(name);
      return cached ? [cached.spec] : [];
    });
  }

  /** Marks a server down: its tools stay registered but are hidden from the model until it is back. */
  setUnavailable(server: string, reason: string): void {
    this.downServers.set(server, reason);
  }

  /** Marks a server up again. */
  setAvailable(server: string): void {
    this.downServers.delete(server);
  }

  /** Why a tool cannot be reached now, or undefined when it can (and for unknown names). */
  unavailableReason(name: string): string | undefined {
    const server = this.byName.get(name)?.source?.server;
    return server === undefined ? undefined : this.downServers.get(server);
  }

  /** Whether a registered tool can be reached now. */
  isAvailable(name: string): boolean {
    return this.byName.has(name) && this.unavailableReason(name) === undefined;
  }

  /** Names of the tools that can be reached now, in registration order. */
  available(): string[] {
    return this.names().filter((name) => this.isAvailable(name));
  }

  /** The tools hidden now, with their server and why. */
  unavailable(): UnavailableTool[] {
    return this.tools().flatMap((tool) => {
      const server = tool.source?.server;
      const reason = server === undefined ? undefined : this.downServers.get(server);
      return server !== undefined && reason !== undefined ? [{ name: tool.name, server, reason }] : [];
    });
  }
}

/** The roles a write opens to when neither the tool nor the config names any: least privilege by default. */
export const DEFAULT_WRITE_ROLES: readonly Role[] = Object.freeze(["operator", "admin"]);

/**
 * The roles that may call `tool`: the ones it names (its own, its MCP listing's or the config
 * file's); else every role for a read (undefined) and `DEFAULT_WRITE_ROLES` for a write, so a
 * `viewer` runs or approves a write only where the config names `viewer` for it.
 */
export function effectiveRoles(tool: Pick<ToolDefinition, "roles" | "readOnly">): readonly Role[] | undefined {
  if (tool.roles !== undefined) return tool.roles;
  return tool.readOnly ? undefined : DEFAULT_WRITE_ROLES;
}

/** Whether `role` may call `tool` (every check of authority, on every surface, asks this). */
export function roleAllows(tool: Pick<ToolDefinition, "roles" | "readOnly">, role: string): boolean {
  const roles = effectiveRoles(tool);
  return roles === undefined || roles.includes(role);
}

function toSpec(tool: ToolDefinition): ToolSpec {
  const { $schema: _schema, ...parameters } =
    tool.parameters ??
    (z.toJSONSchema(tool.schema, {
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>);
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}
