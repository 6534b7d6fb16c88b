import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { createOpenAIChatModel } from "../../src/models/providers/openai-model.js";
import { normalizeModelMessage } from "../../src/models/normalize.js";
import { proposedCalls } from "../../src/contracts/calls.js";
import { startOpenAIServer, type OpenAITestServer } from "../fixtures/openai-server.js";

const tools = ["search_resource", "search_logs", "search_docs"].map((name) => ({
  type: "function" as const,
  function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
}));

let server: OpenAITestServer;
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const model = () =>
  createOpenAIChatModel({
    model: "test-model",
    baseURL: server.baseURL,
    apiKey: "sk-test",
    timeoutMs: 5_000,
    maxRetries: 0,
  });

/** One model reply, from `invoke` (as `call_model` asks) or merged from `stream` chunks (as LangGraph's "messages" mode does). */
async function ask(messages: BaseMessage[], streaming: boolean): Promise<AIMessage | AIMessageChunk> {
  const bound = model().bindTools(tools);
  if (!streaming) return (await bound.invoke(messages)) as AIMessage;
  let merged: AIMessageChunk | undefined;
  for await (const chunk of await bound.stream(messages)) merged = merged ? merged.concat(chunk) : chunk;
  return merged!;
}

const parallelCalls = {
  toolCalls: [
    { id: "call_a", name: "search_resource", arguments: '{"query":"支付"}' },
    { id: "call_b", name: "search_docs", arguments: '{"query":"支付"}' },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 30 },
};

/** One ToolMessage per call id of the reply, as the loop writes them. */
function answerAll(reply: AIMessage): ToolMessage[] {
  return proposedCalls(reply)
    .map((call) => call.id)
    .map(
      (id) =>
        new ToolMessage({
          tool_call_id: id,
          content: JSON.stringify({ ok: false, errorCode: "invalid_args", message: "bad" }),
        }),
    );
}

describe.each([
  ["invoke(), which streams and returns the assembled reply", false],
  ["stream(), chunk by chunk", true],
])("tool calls through ChatOpenAI from %s", (_label, streaming) => {
  it("returns parallel tool calls with their ids and the token usage", async () => {
    server.enqueue(parallelCalls);
    const reply = await ask([new HumanMessage("看看支付服务")], streaming);
    expect(reply.tool_calls?.map(({ id, name, args }) => ({ id, name, args }))).toEqual([
      { id: "call_a", name: "search_resource", args: { query: "支付" } },
      { id: "call_b", name: "search_docs", args: { query: "支付" } },
    ]);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 120, output_tokens: 30, total_tokens: 150 });
    const [request] = server.requests;
    expect(request!.body.stream).toBe(true);
    expect(request!.body.stream_options).toEqual({ include_usage: true });
    expect(request!.body.tools).toHaveLength(3);
    expect(request!.headers.authorization).toBe("Bearer sk-test");
  });

  it("recovers malformed arguments and duplicate or missing ids with the pairing intact", async () => {
    server.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "search_logs", arguments: '{"service": payment-service}' },
          { id: "call_1", name: "search_docs", arguments: '{"query":"支付"}' },
          { id: null, name: "search_resource", arguments: '{"query":"支付"}' },
        ],
      },
      { content: "done" },
    );
    const question = new HumanMessage("看看支付服务");
    const reply = normalizeModelMessage(await ask([question], streaming));

    const ids = proposedCalls(reply).map((call) => call.id);
    expect(new Set(ids).size).toBe(3);
    expect(reply.invalid_tool_calls?.map((call) => call.name)).toEqual(["search_logs"]);
    expect(reply.tool_calls?.map((call) => call.name).sort()).toEqual(["search_docs", "search_resource"]);

    const final = await ask([question, reply, ...answerAll(reply)], streaming);
    expect(final.content).toBe("done");
    const sent = server.requests[1]!;
    expect(sent.violation).toBeUndefined();
    const assistant = sent.body.messages.find((message) => message.role === "assistant")!;
    expect(assistant.tool_calls?.map((call) => call.id).sort()).toEqual([...ids].sort());
    const folded = assistant.tool_calls?.find((call) => call.function?.name === "search_logs");
    expect(folded?.function?.arguments).toBe("{}");
  });
});

describe("how @langchain/openai 1.5.8 sends invalid_tool_calls (why opspilot folds them)", () => {
  const mixed = normalizeModelMessage(
    new AIMessage({
      content: "",
      tool_calls: [{ id: "call_ok", name: "search_docs", args: { query: "x" }, type: "tool_call" }],
      invalid_tool_calls: [
        { id: "call_bad", name: "search_logs", args: "{oops", error: "not JSON", type: "invalid_tool_call" },
      ],
    }),
  );
  const onlyInvalid = normalizeModelMessage(
    new AIMessage({
      content: "",
      invalid_tool_calls: [
        { id: "call_bad", name: "search_logs", args: "{oops", error: "not JSON", type: "invalid_tool_call" },
      ],
    }),
  );
  const history = (reply: AIMessage): BaseMessage[] => [new HumanMessage("q"), reply, ...answerAll(reply)];
  const stock = () =>
    new ChatOpenAI({
      model: "test-model",
      apiKey: "sk-test",
      configuration: { baseURL: server.baseURL },
      maxRetries: 0,
    });

  it("stock ChatOpenAI drops the invalid call next to a valid one, so its ToolMessage is an orphan (400)", async () => {
    server.enqueue({ content: "unused" });
    await expect(stock().invoke(history(mixed))).rejects.toThrow(
      /must be a response to a preceeding message with 'tool_calls'/,
    );
    expect(server.requests[0]!.status).toBe(400);
    server.requests.length = 0;
    server.enqueue({ content: "unused" });
    await expect(stock().invoke(history(onlyInvalid))).rejects.toThrow(/400/);
  });

  it("opspilot's model sends every invalid call as a call with {} arguments, so the request is valid", async () => {
    server.enqueue({ content: "ok 1" }, { content: "ok 2" });
    await expect(model().invoke(history(mixed))).resolves.toMatchObject({ content: "ok 1" });
    await expect(ask(history(onlyInvalid), true)).resolves.toMatchObject({ content: "ok 2" });
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(server.requests[0]!.body.messages[1]!.tool_calls).toEqual([
      { id: "call_ok", type: "function", function: { name: "search_docs", arguments: '{"query":"x"}' } },
      { id: "call_bad", type: "function", function: { name: "search_logs", arguments: "{}" } },
    ]);
  });
});

describe("a stream cut off in the middle of a call's arguments", () => {
  it("ends as an invalid call, never as a call with partial arguments", async () => {
    server.enqueue({ toolCalls: [{ id: "call_cut", name: "search_logs", arguments: '{"service":"payment-ser' }] });
    const streamed = await ask([new HumanMessage("看看支付服务")], true);
    expect(streamed.tool_calls?.[0]?.args).toEqual({ service: "payment-ser" });
    const reply = normalizeModelMessage(streamed);
    expect(reply.tool_calls).toEqual([]);
    expect(reply.invalid_tool_calls).toMatchObject([
      { id: "call_cut", name: "search_logs", args: '{"service":"payment-ser' },
    ]);
  });
});
