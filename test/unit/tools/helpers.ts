import Database from "better-sqlite3";
import { createDemoTools, OpsStore } from "../../../src/demo/index.js";
import type { ToolContext, ToolDefinition } from "../../../src/tools/types.js";

/** The clock every tools test pins: log timestamps and action times derive from it. */
export const NOW = new Date("2025-06-11T08:00:00.000Z");

/** A store over a fresh in-memory database with the pinned clock. */
export function makeStore(db: Database.Database = new Database(":memory:")): OpsStore {
  return new OpsStore(db, { now: () => NOW });
}

/** A tool context as the executor builds it. */
export function makeContext(overrides: Partial<ToolContext> = {}): ToolContext {
  const callId = overrides.callId ?? "call-1";
  const threadId = overrides.threadId ?? "thread-1";
  return {
    signal: new AbortController().signal,
    idempotencyKey: `${threadId}:${callId}`,
    threadId,
    callId,
    user: { id: "user-1", role: "admin" },
    ...overrides,
  };
}

/** The demo tools over a store, by name. */
export function demoTools(store: OpsStore): Map<string, ToolDefinition> {
  return new Map(createDemoTools(store).map((tool) => [tool.name, tool]));
}

/** Runs a tool the way the executor does: arguments parsed by its schema (defaults applied) first. */
export async function runTool(
  store: OpsStore,
  name: string,
  args: Record<string, unknown>,
  context: ToolContext = makeContext(),
): Promise<unknown> {
  const tool = demoTools(store).get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.run(tool.schema.parse(args), context);
}
