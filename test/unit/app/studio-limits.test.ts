import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { serverRunLimits } from "../../../src/app/run-limits.js";
import { studioGraphFactory } from "../../../src/app/studio.js";
import { loadEnv } from "../../../src/config/env.js";
import { LimitAboveCeilingError } from "../../../src/contracts/errors.js";
import { compileGraph } from "../../../src/agent/graph.js";
import type { AgentStateType } from "../../../src/graph/state.js";
import { ScriptedChatModel } from "../../fixtures/scripted-model.js";
import { openSqlite, type SqliteBackend } from "../../../src/storage/sqlite/open-sqlite.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { testTools } from "../../fixtures/test-tools.js";

/** Reads something new every turn, 1000 input and 200 output tokens each. */
const reads = () =>
  Array.from(
    { length: 20 },
    (_, index) =>
      new AIMessage({
        content: "",
        tool_calls: [{ name: "read_a", args: { query: `q${index}` }, type: "tool_call" }],
        usage_metadata: { input_tokens: 1_000, output_tokens: 200, total_tokens: 1_200 },
      }),
  );

describe("the graph LangGraph Studio runs, under the environment's limits", () => {
  let backend: SqliteBackend | undefined;
  afterEach(() => backend?.close());

  function factory(env: Record<string, string>, profiles: Record<string, Record<string, number>> = {}) {
    backend = openSqlite(":memory:");
    const graph = compileGraph(
      {
        model: new ScriptedChatModel({ script: reads() }),
        registry: new ToolRegistry(testTools()),
        storage: backend.storage,
      },
      new MemorySaver(),
    );
    const limits = serverRunLimits(loadEnv(env), { profiles });
    return studioGraphFactory(() => ({ graph, limits }));
  }

  const runOn = async (graph: ReturnType<ReturnType<typeof factory>>, threadId: string, context?: object) =>
    (await graph.invoke(
      { messages: [new HumanMessage("look around")] },
      // A partial context, as Studio sends it; the graph's type expects every option.
      { configurable: { thread_id: threadId }, ...(context ? { context } : {}) } as never,
    )) as AgentStateType;

  it("runs with the environment's limits and prices when the context sets none", async () => {
    const graph = factory({ OPSPILOT_MAX_STEPS: "2", OPSPILOT_PRICE_INPUT_PER_MTOK: "1" })();
    const state = await runOn(graph, "t1");
    expect(state.stop?.reason).toBe("max_steps");
    expect(state.run).toMatchObject({ steps: 3, tokens: 3_600 });
    expect(state.run!.costUsd).toBeCloseTo(0.003, 12);
  });

  it("lets the context tighten a limit", async () => {
    const make = factory({ OPSPILOT_MAX_STEPS: "3" });
    const state = await runOn(make({}, { executionRuntime: { context: { maxSteps: 1 } } }), "t2", { maxSteps: 1 });
    expect(state.stop?.reason).toBe("max_steps");
    expect(state.run?.steps).toBe(2);
  });

  it("lets the run's configurable tighten a limit over the environment's default", async () => {
    const make = factory({ OPSPILOT_MAX_STEPS: "3" });
    const graph = make({ configurable: { maxSteps: 1 } });
    const state = (await graph.invoke(
      { messages: [new HumanMessage("look around")] },
      { configurable: { thread_id: "t3", maxSteps: 1 } },
    )) as AgentStateType;
    expect(state.stop?.reason).toBe("max_steps");
    expect(state.run?.steps).toBe(2);
  });

  it("refuses a context or configurable limit above the environment's ceiling", () => {
    const make = factory({ OPSPILOT_MAX_STEPS: "3", OPSPILOT_TOKEN_BUDGET: "5000" });
    expect(() => make({}, { executionRuntime: { context: { maxSteps: 4 } } })).toThrow(
      new LimitAboveCeilingError("maxSteps", 4, 3, "OPSPILOT_MAX_STEPS"),
    );
    expect(() => make({ configurable: { tokenBudget: 9_000 } })).toThrow(
      "tokenBudget 9000 is above the server's ceiling of 5000 (OPSPILOT_TOKEN_BUDGET); a run may only tighten it.",
    );
  });

  it("applies a profile named in Studio's context, under the run's own limits, and refuses an unknown one", async () => {
    const make = factory({ OPSPILOT_MAX_STEPS: "6" }, { quick: { maxSteps: 1 }, investigate: { maxSteps: 4 } });
    const quick = await runOn(make({}, { executionRuntime: { context: { profile: "quick" } } }), "t5");
    expect(quick.stop?.reason).toBe("max_steps");
    expect(quick.run?.steps).toBe(2);
    const tightened = await runOn(
      make({}, { executionRuntime: { context: { profile: "investigate", maxSteps: 2 } } }),
      "t6",
      { maxSteps: 2 },
    );
    expect(tightened.run?.steps).toBe(3);
    expect(() => make({}, { executionRuntime: { context: { profile: "nightly" } } })).toThrow(/nightly/);
  });
});
