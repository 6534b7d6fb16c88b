import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatAnthropic } from "@langchain/anthropic";
import { createAnthropicChatModel } from "../../src/models/providers/anthropic-model.js";
import { normalizeModelMessage } from "../../src/models/normalize.js";
import { startAnthropicServer, type AnthropicTestServer } from "../fixtures/anthropic-server.js";

const tools = ["search_resource", "search_logs", "search_docs"].map((name) => ({
  type: "function" as const,
  function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
}));

let server: AnthropicTestServer;
beforeAll(async () => {
  server = await startAnthropicServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const model = () =>
  createAnthropicChatModel({
    model: "claude-test",
    baseURL: server.baseURL,
    apiKey: "sk-ant-test",
    timeoutMs: 5_000,
    maxRetries: 0,
  });
const stock = () =>
  new ChatAnthropic({ model: "claude-test", apiKey: "sk-ant-test", anthropicApiUrl: server.baseURL, maxRetries: 0 });

const failed = (id: string) =>
  new ToolMessage({
    tool_call_id: id,
    content: JSON.stringify({ ok: false, errorCode: "not_found", message: "no such service" }),
    status: "error",
    artifact: { ok: false, errorCode: "not_found" },
  });
const succeeded = (id: string) =>
  new ToolMessage({ tool_call_id: id, content: JSON.stringify({ ok: true, data: [] }), artifact: { ok: true } });

/** A crash repair left the results of an abandoned call right before the next question. */
const repairedHistory: BaseMessage[] = [
  new SystemMessage("You are opspilot."),
  new HumanMessage("查一下支付服务日志"),
  new AIMessage({
    content: "",
    tool_calls: [{ id: "toolu_a", name: "search_logs", args: { service: "payment-service" }, type: "tool_call" }],
  }),
  failed("toolu_a"),
  new HumanMessage("算了，不用查了"),
];

describe("requests to a strict Messages API server", () => {
  it("stock ChatAnthropic sends the results and the next question as two user turns in a row (400)", async () => {
    server.enqueue({ text: "unused" });
    await expect(stock().invoke(repairedHistory)).rejects.toThrow(/roles must alternate/);
    expect(server.requests[0]!.status).toBe(400);
  });

  it("opspilot's model merges them into one user turn, results first, the failure marked is_error", async () => {
    server.enqueue({ text: "好的。" });
    const reply = await model().invoke(repairedHistory);
    expect(reply.content).toBe("好的。");
    const [request] = server.requests;
    expect(request!.violation).toBeUndefined();
    expect(request!.body.system).toBe("You are opspilot.");
    expect(request!.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "查一下支付服务日志" }] },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_a", name: "search_logs", input: { service: "payment-service" } }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_a",
            content: '{"ok":false,"errorCode":"not_found","message":"no such service"}',
            is_error: true,
          },
          { type: "text", text: "算了，不用查了" },
        ],
      },
    ]);
  });

  it("assembles streamed parallel tool_use blocks into tool calls with their ids, text and usage", async () => {
    server.enqueue({
      text: "两个都查。",
      toolUses: [
        { id: "toolu_1", name: "search_resource", input: { query: "支付" } },
        { id: "toolu_2", name: "search_docs", input: { query: "支付" } },
      ],
      usage: { input_tokens: 321, output_tokens: 54 },
    });
    const reply = normalizeModelMessage(
      await model()
        .bindTools(tools)
        .invoke([new HumanMessage("看看支付服务")]),
    );
    expect(reply.content).toBe("两个都查。");
    expect(reply.tool_calls?.map(({ id, name, args }) => ({ id, name, args }))).toEqual([
      { id: "toolu_1", name: "search_resource", args: { query: "支付" } },
      { id: "toolu_2", name: "search_docs", args: { query: "支付" } },
    ]);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 321, output_tokens: 54, total_tokens: 375 });
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(server.requests[0]!.body.tools).toHaveLength(3);
  });

  it("keeps the pairing for cut-off arguments and ids the loop renamed", async () => {
    server.enqueue(
      {
        toolUses: [
          { id: "toolu_dup", name: "search_docs", input: { query: "支付" } },
          { id: "toolu_dup", name: "search_resource", input: { query: "支付" } },
          { id: "toolu_cut", name: "search_logs", input: '{"service":"payment-ser' },
        ],
      },
      { text: "done" },
    );
    const question = new HumanMessage("看看支付服务");
    const reply = normalizeModelMessage(await model().bindTools(tools).invoke([question]));
    expect(reply.tool_calls?.map((call) => call.id)).toEqual(["toolu_dup", "toolu_dup_2"]);
    expect(reply.invalid_tool_calls?.map((call) => [call.id, call.args])).toEqual([
      ["toolu_cut", '{"service":"payment-ser'],
    ]);

    const answers = ["toolu_dup", "toolu_dup_2"].map(succeeded);
    const final = await model()
      .bindTools(tools)
      .invoke([question, reply, ...answers, failed("toolu_cut")]);
    expect(final.content).toBe("done");
    const sent = server.requests[1]!;
    expect(sent.violation).toBeUndefined();
    const assistant = sent.body.messages![1]!.content as Array<{ id?: string; input?: unknown }>;
    expect(assistant.map((block) => [block.id, block.input])).toEqual([
      ["toolu_dup", { query: "支付" }],
      ["toolu_dup_2", { query: "支付" }],
      ["toolu_cut", {}],
    ]);
  });
});
