import { describe, expect, it } from "vitest";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { normalizeModelMessage } from "../../../src/models/normalize.js";
import { proposedCalls } from "../../../src/contracts/calls.js";

const call = (id: string | undefined, name: string, args: Record<string, unknown> = {}) => ({
  id,
  name,
  args,
  type: "tool_call" as const,
});

describe("normalizeModelMessage", () => {
  it("gives a message without an id a uuid and keeps an existing one", () => {
    expect(normalizeModelMessage(new AIMessage("hi")).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(normalizeModelMessage(new AIMessage({ id: "chatcmpl-1", content: "hi" })).id).toBe("chatcmpl-1");
  });

  it("makes duplicate call ids unique with _2, _3 across valid and invalid calls", () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [
        call("call_0", "search_resource", { query: "支付" }),
        call("call_0", "search_docs", { query: "支付" }),
      ],
      invalid_tool_calls: [
        { id: "call_0", name: "search_logs", args: "{service:", error: "bad", type: "invalid_tool_call" },
      ],
    });
    const normalized = normalizeModelMessage(message);
    expect(normalized.tool_calls).toEqual([
      call("call_0", "search_resource", { query: "支付" }),
      call("call_0_2", "search_docs", { query: "支付" }),
    ]);
    expect(normalized.invalid_tool_calls).toEqual([
      { id: "call_0_3", name: "search_logs", args: "{service:", error: "bad", type: "invalid_tool_call" },
    ]);
    expect(proposedCalls(normalized).map((call) => call.id)).toEqual(["call_0", "call_0_2", "call_0_3"]);
  });

  it("gives calls without an id a fresh one", () => {
    const normalized = normalizeModelMessage(
      new AIMessage({ content: "", tool_calls: [call(undefined, "search_docs"), call("", "search_docs")] }),
    );
    const ids = proposedCalls(normalized).map((call) => call.id);
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => /^call_[0-9a-f]{24}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });

  it("avoids ids already used in the thread (servers that reuse call_0 every turn)", () => {
    const message = new AIMessage({ id: "chatcmpl-7", content: "", tool_calls: [call("call_0", "search_docs")] });
    const normalized = normalizeModelMessage(message, { usedIds: new Set(["chatcmpl-7", "call_0", "call_0_2"]) });
    expect(normalized.id).toBe("chatcmpl-7_2");
    expect(normalized.tool_calls?.[0]?.id).toBe("call_0_3");
  });

  it("keeps malformed arguments as invalid calls with their ids and drops the stale raw copy", () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [call("call_a", "search_docs", { query: "x" })],
      invalid_tool_calls: [
        {
          id: "call_b",
          name: "search_logs",
          args: '{"service": payment}',
          error: "Malformed args.",
          type: "invalid_tool_call",
        },
      ],
      additional_kwargs: {
        tool_calls: [
          { id: "call_b", type: "function", function: { name: "search_logs", arguments: '{"service": payment}' } },
        ],
        reasoning_content: "r",
      },
      usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    });
    const normalized = normalizeModelMessage(message);
    expect(normalized.invalid_tool_calls).toEqual([
      {
        id: "call_b",
        name: "search_logs",
        args: '{"service": payment}',
        error: "Malformed args.",
        type: "invalid_tool_call",
      },
    ]);
    expect(normalized.additional_kwargs).toEqual({ reasoning_content: "r" });
    expect(normalized.usage_metadata).toEqual({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
  });

  it("treats empty arguments as {} and non-object JSON as invalid", () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [
        { id: "call_arr", name: "search_docs", args: [1, 2] as unknown as Record<string, unknown>, type: "tool_call" },
      ],
      invalid_tool_calls: [
        { id: "call_empty", name: "list_services", args: "", error: "Malformed args.", type: "invalid_tool_call" },
      ],
    });
    const normalized = normalizeModelMessage(message);
    expect(normalized.tool_calls).toEqual([call("call_empty", "list_services", {})]);
    expect(normalized.invalid_tool_calls).toEqual([
      {
        id: "call_arr",
        name: "search_docs",
        args: "[1,2]",
        error: "Tool arguments must be a JSON object.",
        type: "invalid_tool_call",
      },
    ]);
  });

  it("revives a streamed call that core flagged only because it had no id", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [{ type: "tool_call_chunk", index: 0, name: "search_docs", args: '{"query":"支付"}' }],
    });
    expect(chunk.invalid_tool_calls).toHaveLength(1);
    const normalized = normalizeModelMessage(chunk);
    expect(normalized.invalid_tool_calls).toEqual([]);
    expect(normalized.tool_calls?.[0]).toMatchObject({ name: "search_docs", args: { query: "支付" } });
    expect(normalized).toBeInstanceOf(AIMessage);
  });

  it("matches streamed arguments to their own call when a server repeats an id within one reply", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [
        { type: "tool_call_chunk", index: 0, id: "call_0", name: "search_resource", args: '{"query":"支付"}' },
        { type: "tool_call_chunk", index: 1, id: "call_0", name: "search_docs", args: '{"query": 支付}' },
      ],
    });
    const normalized = normalizeModelMessage(chunk);
    expect(normalized.tool_calls).toEqual([call("call_0", "search_resource", { query: "支付" })]);
    expect(normalized.invalid_tool_calls?.map(({ id, name, args }) => [id, name, args])).toEqual([
      ["call_0_2", "search_docs", '{"query": 支付}'],
    ]);
  });

  it("never lets a stream cut off mid-arguments pass as a call with partial arguments", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [
        { type: "tool_call_chunk", index: 0, id: "call_cut", name: "restart_service", args: '{"service":"payment-ser' },
      ],
    });
    expect(chunk.tool_calls?.[0]?.args).toEqual({ service: "payment-ser" });
    const normalized = normalizeModelMessage(chunk);
    expect(normalized.tool_calls).toEqual([]);
    expect(normalized.invalid_tool_calls).toEqual([
      {
        id: "call_cut",
        name: "restart_service",
        args: '{"service":"payment-ser',
        error: "Tool arguments are cut off or not valid JSON.",
        type: "invalid_tool_call",
      },
    ]);
  });
});
