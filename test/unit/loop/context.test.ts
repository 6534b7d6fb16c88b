import { describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { compileGraph } from "../../../src/agent/graph.js";
import { threadIdOf } from "../../../src/graph/context.js";
import { ThreadIdRequiredError } from "../../../src/contracts/errors.js";
import { ScriptedChatModel, answerMessage } from "../../fixtures/scripted-model.js";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { testTools } from "../../fixtures/test-tools.js";

describe("the thread id of a run", () => {
  it("is read from configurable.thread_id", () => {
    expect(threadIdOf({ configurable: { thread_id: "t-42" } })).toBe("t-42");
  });

  it("is required: a missing or empty one is a clear error, never a shared default key", () => {
    expect(() => threadIdOf({})).toThrow(ThreadIdRequiredError);
    expect(() => threadIdOf({ configurable: { thread_id: "" } })).toThrow(
      "A thread id is required: pass configurable.thread_id (every opspilot run belongs to a thread).",
    );
  });

  it("stops a graph invoked without a thread before the model is called", async () => {
    const backend = openSqlite(":memory:");
    const model = new ScriptedChatModel({ script: [answerMessage("never")] });
    const graph = compileGraph({ model, registry: new ToolRegistry(testTools()), storage: backend.storage });
    await expect(graph.invoke({ messages: [new HumanMessage("hi")] })).rejects.toMatchObject({
      name: "ThreadIdRequiredError",
      code: "thread_id_required",
      status: 400,
    });
    expect(model.calls).toHaveLength(0);
    backend.close();
  });
});
