import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isFailedObservation, toAnthropicRequestMessages } from "../../../src/models/providers/anthropic-messages.js";

const call = (id: string, name = "search_docs") => ({
  id,
  name,
  args: { query: "支付" },
  type: "tool_call" as const,
});

/** Each message as role and content, the way the assertions read best. */
const shape = (messages: BaseMessage[]) => messages.map((message) => [message.type, message.content]);

describe("toAnthropicRequestMessages", () => {
  it("puts every system message first, where ChatAnthropic lifts them into the system field", () => {
    const out = toAnthropicRequestMessages([
      new SystemMessage("prompt"),
      new HumanMessage("q"),
      new SystemMessage("working memory"),
      new AIMessage("a"),
      new HumanMessage("q2"),
    ]);
    expect(shape(out)).toEqual([
      ["system", "prompt"],
      ["system", "working memory"],
      ["human", [{ type: "text", text: "q" }]],
      ["ai", "a"],
      ["human", [{ type: "text", text: "q2" }]],
    ]);
  });

  it("opens with a user turn when the history starts with the assistant", () => {
    const out = toAnthropicRequestMessages([new AIMessage("earlier answer"), new HumanMessage("q")]);
    expect(shape(out)).toEqual([
      ["human", [{ type: "text", text: "(earlier conversation)" }]],
      ["ai", "earlier answer"],
      ["human", [{ type: "text", text: "q" }]],
    ]);
  });

  it("merges consecutive assistant messages and drops empty turns", () => {
    const first = new AIMessage({ content: "first", tool_calls: [call("toolu_1")] });
    const out = toAnthropicRequestMessages([
      new HumanMessage("q"),
      new HumanMessage("  "),
      first,
      new AIMessage(""),
      new AIMessage({ content: [{ type: "text", text: "second" }], tool_calls: [call("toolu_2", "search_logs")] }),
      new ToolMessage({ tool_call_id: "toolu_1", content: "r1" }),
      new ToolMessage({ tool_call_id: "toolu_2", content: "r2" }),
    ]);
    expect(out.map((message) => message.type)).toEqual(["human", "ai", "human"]);
    expect(out[1]!.content).toBe("first\n\nsecond");
    expect((out[1] as AIMessage).tool_calls?.map((entry) => entry.id)).toEqual(["toolu_1", "toolu_2"]);
    expect(first.tool_calls?.map((entry) => entry.id)).toEqual(["toolu_1"]);
    expect(out[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "r1" },
      { type: "tool_result", tool_use_id: "toolu_2", content: "r2" },
    ]);
  });

  it("sends invalid calls as calls with {} and re-sends assistant blocks from tool_calls", () => {
    const reply = new AIMessage({
      content: [
        { type: "text", text: "looking" },
        { type: "tool_use", id: "toolu_old", name: "search_docs", input: { query: "支付" } },
      ],
      tool_calls: [call("toolu_old_2")],
      invalid_tool_calls: [
        { id: "toolu_bad", name: "search_logs", args: "{", error: "cut", type: "invalid_tool_call" },
      ],
    });
    const [, assistant] = toAnthropicRequestMessages([new HumanMessage("q"), reply]);
    expect(assistant!.content).toBe("looking");
    expect((assistant as AIMessage).tool_calls?.map(({ id, name, args }) => [id, name, args])).toEqual([
      ["toolu_old_2", "search_docs", { query: "支付" }],
      ["toolu_bad", "search_logs", {}],
    ]);
  });

  it("writes ids from other providers in the characters the API accepts, in the call and its result alike", () => {
    const [, assistant, results] = toAnthropicRequestMessages([
      new HumanMessage("q"),
      new AIMessage({ content: "", tool_calls: [call("functions.search_docs:0")] }),
      new ToolMessage({ tool_call_id: "functions.search_docs:0", content: "r" }),
    ]);
    expect((assistant as AIMessage).tool_calls?.[0]?.id).toBe("functions_search_docs_0");
    expect(results!.content).toEqual([{ type: "tool_result", tool_use_id: "functions_search_docs_0", content: "r" }]);
  });
});

describe("isFailedObservation", () => {
  it("reads the ToolMessage status or opspilot's observation metadata", () => {
    const message = (fields: { status?: "error" | "success"; artifact?: unknown }) =>
      new ToolMessage({ tool_call_id: "toolu_1", content: "x", ...fields });
    expect(
      [
        message({ status: "error" }),
        message({ artifact: { ok: false } }),
        message({ status: "success", artifact: { ok: true } }),
        message({}),
      ].map(isFailedObservation),
    ).toEqual([true, true, false, false]);
  });
});
