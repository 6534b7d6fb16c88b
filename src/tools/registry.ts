import { z } from "zod";
import type { ToolDefinition } from "./types.js";

/** A tool as bound to a chat model: OpenAI function format with JSON Schema from zod. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The tools one graph can call, by name, with their model-facing specs computed once. */
export class ToolRegistry {
  private readonly byName = new Map<string, ToolDefinition>();
  private readonly specByName = new Map<string, ToolSpec>();

  constructor(tools: readonly ToolDefinition[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`Duplicate tool name: ${tool.name}`);
      this.byName.set(tool.name, tool);
      this.specByName.set(tool.name, toSpec(tool));
    }
  }

  /** The definition of a tool, or undefined for an unknown name. */
  get(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** Names of every tool, in registration order. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Model-facing specs of the named tools (all tools when omitted). */
  specs(names?: readonly string[]): ToolSpec[] {
    const wanted = names ?? this.names();
    return wanted.flatMap((name) => {
      const spec = this.specByName.get(name);
      return spec ? [spec] : [];
    });
  }
}

/** Whether `role` may call `tool`. */
export function roleAllows(tool: ToolDefinition, role: string): boolean {
  return tool.roles === undefined || tool.roles.includes(role);
}

function toSpec(tool: ToolDefinition): ToolSpec {
  const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.schema, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}
