import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { toRequestMessages } from "../../../src/models/request-messages.js";

const mixed = new AIMessage({
  id: "m1",
  content: "",
  tool_calls: [{ id: "call_ok", name: "search_docs", args: { query: "x" }, type: "tool_call" }],
  invalid_tool_calls: [
    { id: "call_bad", name: "search_logs", args: "{oops", error: "Malformed args.", type: "invalid_tool_call" },
    { id: "call_nameless", args: "?", error: "Malformed args.", type: "invalid_tool_call" },
  ],
});

describe("toRequestMessages", () => {
  it("shows the converter of @langchain/openai 1.5.8 drops invalid calls next to valid ones", () => {
    const [assistant] = convertMessagesToCompletionsMessageParams({ messages: [mixed] }) as Array<{
      tool_calls?: Array<{ id: string }>;
    }>;
    expect(assistant!.tool_calls?.map((call) => call.id)).toEqual(["call_ok"]);
  });

  it("sends every invalid call as a call with {} arguments, keeping its id", () => {
    const [assistant] = convertMessagesToCompletionsMessageParams({ messages: toRequestMessages([mixed]) }) as Array<{
      tool_calls?: unknown[];
    }>;
    expect(assistant!.tool_calls).toEqual([
      { id: "call_ok", type: "function", function: { name: "search_docs", arguments: '{"query":"x"}' } },
      { id: "call_bad", type: "function", function: { name: "search_logs", arguments: "{}" } },
      { id: "call_nameless", type: "function", function: { name: "invalid_tool_call", arguments: "{}" } },
    ]);
  });

  it("returns messages without invalid calls untouched (same objects)", () => {
    const messages = [new HumanMessage("q"), new AIMessage("a"), new ToolMessage({ tool_call_id: "x", content: "{}" })];
    const result = toRequestMessages(messages);
    result.forEach((message, index) => expect(message).toBe(messages[index]));
    expect(toRequestMessages([mixed])[0]).not.toBe(mixed);
    expect(mixed.invalid_tool_calls).toHaveLength(2);
  });
});
