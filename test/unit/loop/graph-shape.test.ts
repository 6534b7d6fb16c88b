import { describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import { compileGraph } from "../../../src/agent/graph.js";
import { ScriptedChatModel } from "../../fixtures/scripted-model.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { testTools } from "../../fixtures/test-tools.js";
import { LOOP_EDGES, LOOP_NODES } from "../../fixtures/loop-shape.js";

describe("the compiled graph", () => {
  it("has the six nodes of the design and exactly its edges", async () => {
    const backend = openSqlite(":memory:");
    const graph = compileGraph(
      {
        model: new ScriptedChatModel({ script: [] }),
        registry: new ToolRegistry(testTools()),
        storage: backend.storage,
      },
      new MemorySaver(),
    );
    const drawn = await graph.getGraphAsync();
    expect(Object.keys(drawn.nodes).sort()).toEqual(["__end__", "__start__", ...LOOP_NODES].sort());
    expect(drawn.edges.map((edge) => `${edge.source}->${edge.target}`).sort()).toEqual([...LOOP_EDGES].sort());
    // Only the entry and the exit are unconditional; every decision, the pause's included, is a routing function's.
    const unconditional = drawn.edges
      .filter((edge) => !edge.conditional)
      .map((edge) => `${edge.source}->${edge.target}`);
    expect(unconditional.sort()).toEqual(["__start__->call_model", "finish_run->__end__"]);
    backend.close();
  });
});
