import Database from "better-sqlite3";
import { ToolError } from "../contracts/errors.js";
import { createDemoTools, OpsStore } from "../demo/index.js";
import type { DocsSearch } from "../tools/index.js";
import { toIndexText } from "../tools/text-search/text.js";
import type { ToolDefinition } from "../tools/types.js";
import type { Fault, Planted } from "./scenario-schema.js";

/** One scenario's own demo estate and planted failures. */
interface ScenarioState {
  /** Its copy of the demo dataset, opened on its first tool call. */
  database?: Database.Database;
  /** The demo tools over that copy, by name. */
  tools?: Map<string, ToolDefinition>;
  /** Its faults, with the attempts each has failed. */
  faults: Array<Fault & { failed: number }>;
  /** Its planted log lines (in its dataset) and runbooks (the best hits of its `search_docs`). */
  planted: Planted;
}

const NOTHING_PLANTED: Planted = { logs: [], runbooks: [] };

/**
 * The demo tools as each scenario sees them: every scenario thread gets its own copy of the
 * demo dataset, so a restart or rollback in one scenario (or one repeat) never changes what
 * another reads; a scenario's `faults` make its tools throw a classified error instead of
 * running, and its `planted` log lines and runbooks are what its tools return, on its thread only.
 */
export class ScenarioTools {
  private readonly threads = new Map<string, ScenarioState>();
  private template?: Buffer;

  constructor(
    /** What `search_docs` searches (the config's runbooks folder with the demo runbooks), when not the dataset. */
    private readonly docs?: DocsSearch,
  ) {}

  /** Gives a scenario's thread its own dataset, its faults and what it plants. */
  plant(threadId: string, faults: readonly Fault[], planted: Planted = NOTHING_PLANTED): void {
    this.threads.set(threadId, { faults: faults.map((fault) => ({ ...fault, failed: 0 })), planted });
  }

  /** Closes a thread's dataset and forgets its faults. */
  clear(threadId: string): void {
    this.threads.get(threadId)?.database?.close();
    this.threads.delete(threadId);
  }

  /**
   * The app's demo tools, each running on the calling scenario's own dataset and failing as
   * its faults say; a tool some scenario plants a fault in also names that fault's `fallback`
   * in its failed observations (a config file's `fallback` still wins).
   */
  wrap(tools: readonly ToolDefinition[], faults: readonly Fault[]): ToolDefinition[] {
    return tools.map((tool) => {
      const fallback = [
        ...new Set(faults.filter((fault) => fault.tool === tool.name).flatMap((f) => f.fallback ?? [])),
      ];
      return {
        ...tool,
        fallback: tool.fallback ?? (fallback.length > 0 ? fallback : undefined),
        run: async (args, ctx) => {
          const state = this.threads.get(ctx.threadId);
          const fault = state && take(state, tool.name);
          if (fault)
            throw new ToolError(fault.errorCode, `${tool.name} is unavailable right now (${fault.errorCode}).`);
          const own = state ? this.toolsOf(state).get(tool.name) : undefined;
          const result = await (own ?? tool).run(args, ctx);
          return state && tool.name === "search_docs" ? withPlantedRunbooks(result, state.planted) : result;
        },
      };
    });
  }

  /** Closes every dataset still open. */
  close(): void {
    for (const threadId of [...this.threads.keys()]) this.clear(threadId);
  }

  /** A scenario's demo tools, over a copy of the dataset made from a template loaded once. */
  private toolsOf(state: ScenarioState): Map<string, ToolDefinition> {
    if (!state.tools) {
      if (!this.template) {
        const loaded = new Database(":memory:");
        new OpsStore(loaded);
        this.template = loaded.serialize();
        loaded.close();
      }
      state.database = new Database(this.template);
      const store = new OpsStore(state.database);
      // Indexed as the dataset's own lines are, so a `query` of their words or code finds them too.
      const insert = state.database.prepare(
        "INSERT INTO ops_logs (service, environment, level, code, message, seconds_ago) VALUES (?, ?, ?, ?, ?, ?)",
      );
      const index = state.database.prepare("INSERT INTO ops_logs_fts (rowid, body) VALUES (?, ?)");
      for (const line of state.planted.logs) {
        const row = insert.run(line.service, line.environment, line.level, line.code, line.message, line.secondsAgo);
        index.run(row.lastInsertRowid, toIndexText(line.code ?? "", line.message));
      }
      state.tools = new Map(createDemoTools(store, this.docs ?? store).map((tool) => [tool.name, tool]));
    }
    return state.tools;
  }
}

/** A `search_docs` result with the planted runbooks first, as the best hits. */
function withPlantedRunbooks(result: unknown, planted: Planted): unknown {
  if (planted.runbooks.length === 0 || !result || typeof result !== "object") return result;
  const found = result as { results?: unknown };
  if (!Array.isArray(found.results)) return result;
  const hits = planted.runbooks.map((runbook) => ({ ...runbook, score: 1 }));
  return { ...found, results: [...hits, ...found.results] };
}

/** The fault that fails this attempt, counting it, or undefined when the call runs. */
function take(state: ScenarioState, tool: string): Fault | undefined {
  const fault = state.faults.find((candidate) => candidate.tool === tool);
  if (!fault || (fault.times !== undefined && fault.failed >= fault.times)) return undefined;
  fault.failed += 1;
  return fault;
}
