import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { createHarness, shape } from "../../fixtures/harness.js";

describe("validate_calls", () => {
  it("lets the model correct a call that misses a required argument", async () => {
    const harness = createHarness({
      script: [
        callsMessage([{ name: "read_a", args: {}, id: "c1" }]),
        callsMessage([{ name: "read_a", args: { query: "payments" }, id: "c2" }]),
        answerMessage("Found payments."),
      ],
    });
    const { messages, events } = await harness.ask("look up payments");
    expect(shape(messages)).toEqual([
      "human",
      "ai:read_a",
      "tool:read_a:invalid_args",
      "ai:read_a",
      "tool:read_a:ok",
      "ai",
    ]);
    expect(JSON.parse(String(messages[2]!.content))).toEqual({
      ok: false,
      errorCode: "invalid_args",
      message: "Invalid arguments for read_a: query: Invalid input: expected string, received undefined.",
      source: { tool: "read_a" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(harness.model.calls[1]!.messages.at(-1)!.content).toContain("invalid_args");
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer", steps: 3 });
  });

  it("answers an unknown tool name with the list of real tools", async () => {
    const harness = createHarness({
      script: [callsMessage([{ name: "read_c", args: { query: "x" } }]), answerMessage("ok")],
    });
    const { messages } = await harness.ask("x");
    expect(JSON.parse(String(messages[2]!.content))).toEqual({
      ok: false,
      errorCode: "unknown_tool",
      message:
        'There is no tool named "read_c". Available tools: read_a, read_b, write_low, write_high, explode, hang, missing, ask_midway, change_with_ticket, big.',
      source: { tool: "read_c" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it("refuses a tool the user's role may not call, without running it", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      user: { id: "v", role: "viewer" },
      tools: (await import("../../fixtures/test-tools.js")).testTools({ writes }),
      script: [callsMessage([{ name: "write_low", args: { target: "db", environment: "prod" } }]), answerMessage("ok")],
    });
    const { messages } = await harness.ask("change db");
    expect(JSON.parse(String(messages[2]!.content))).toEqual({
      ok: false,
      errorCode: "permission_denied",
      message: "Your role (viewer) is not allowed to use write_low.",
      source: { tool: "write_low" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(writes).toEqual([]);
  });

  it("skips calls to other tools in serial step mode and says which tool is allowed", async () => {
    const harness = createHarness({
      script: [
        callsMessage([
          { name: "read_a", args: { query: "x" } },
          { name: "read_b", args: { query: "y" } },
        ]),
        answerMessage("ok"),
      ],
      options: { stepTools: ["read_a"] },
    });
    const { messages } = await harness.ask("x");
    expect(harness.model.calls[0]!.tools).toEqual(["read_a"]);
    expect(shape(messages)).toEqual(["human", "ai:read_a+read_b", "tool:read_a:ok", "tool:read_b:skipped", "ai"]);
    expect(JSON.parse(String(messages[3]!.content)).message).toBe("Not run: only read_a may be called in this step.");
  });

  it("answers a call whose arguments were not valid JSON under its own id", async () => {
    const { AIMessage } = await import("@langchain/core/messages");
    const harness = createHarness({
      script: [
        new AIMessage({
          content: "",
          tool_calls: [],
          invalid_tool_calls: [
            { id: "bad1", name: "read_a", args: "{query:", error: "Unexpected token", type: "invalid_tool_call" },
          ],
        }),
        answerMessage("ok"),
      ],
    });
    const { messages } = await harness.ask("x");
    expect((messages[2] as unknown as { tool_call_id: string }).tool_call_id).toBe("bad1");
    expect(JSON.parse(String(messages[2]!.content)).errorCode).toBe("invalid_args");
  });
});

describe("a run abandoned outside the runtime", () => {
  it("answers the abandoned calls as cancelled before the next user message, so the next run pairs every id", async () => {
    const { AIMessage, HumanMessage } = await import("@langchain/core/messages");
    const harness = createHarness({ script: [answerMessage("Fresh answer.")] });
    const config = { configurable: { thread_id: "abandoned" } };
    await harness.graph.updateState(
      config,
      {
        messages: [
          new HumanMessage({ id: "h1", content: "first" }),
          new AIMessage({
            id: "a1",
            content: "",
            tool_calls: [{ id: "c1", name: "read_a", args: { query: "x" }, type: "tool_call" }],
          }),
        ],
      },
      "finish_run",
    );
    await harness.graph.invoke({ messages: [new HumanMessage({ id: "h2", content: "second" })] }, config);
    const { messages } = await harness.state("abandoned");
    expect(shape(messages)).toEqual(["human", "ai:read_a", "tool:read_a:cancelled", "human", "ai"]);
    expect(String(messages[3]!.content)).toBe("second");
    expect(harness.violations).toEqual([]);
    const { toolCalls } = await harness.storage.threadRecords("abandoned");
    expect(toolCalls.map((call) => [call.call_id, call.tool, call.outcome, call.error_code])).toEqual([
      ["c1", "read_a", "cancelled", "cancelled"],
    ]);
  });
});
