import { afterAll, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { createOpenAIChatModel } from "../../src/models/providers/openai-model.js";
import { createAnthropicChatModel } from "../../src/models/providers/anthropic-model.js";
import { normalizeModelMessage } from "../../src/models/normalize.js";
import { startAnthropicServer } from "../fixtures/anthropic-server.js";
import { chatChunk as chunk, slowOpenAIServer } from "../fixtures/streaming-model.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** The events of a slow CPU model: a tool call, a few words of text, usage, 300 ms apart. */
const SLOW_EVENTS = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Checking " }),
  chunk({ content: "the logs." }),
  chunk({
    tool_calls: [{ index: 0, id: "call_slow", type: "function", function: { name: "search_logs", arguments: "" } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"service":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"payment-service"}' } }] }),
  chunk({}, "tool_calls"),
  chunk({}, null, { prompt_tokens: 1_900, completion_tokens: 25, total_tokens: 1_925 }),
  "data: [DONE]\n\n",
];

const openAI = (baseURL: string) =>
  createOpenAIChatModel({ model: "slow-model", baseURL, apiKey: "sk-test", timeoutMs: 1_000, maxRetries: 1 });

describe("streamed requests to slow models with a 1 s time limit", () => {
  it("completes an OpenAI-compatible answer whose chunks arrive 300 ms apart for over 2 s", async () => {
    const server = await slowOpenAIServer(
      SLOW_EVENTS,
      SLOW_EVENTS.map(() => 300),
    );
    servers.push(server);
    const started = performance.now();
    const reply = normalizeModelMessage(await openAI(server.baseURL).invoke([new HumanMessage("payment errors?")]));
    expect(performance.now() - started).toBeGreaterThan(2_000);
    expect(reply.content).toBe("Checking the logs.");
    expect(reply.tool_calls).toEqual([
      { type: "tool_call", id: "call_slow", name: "search_logs", args: { service: "payment-service" } },
    ]);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 1_900, output_tokens: 25, total_tokens: 1_925 });
    expect(server.bodies).toHaveLength(1);
    expect(server.bodies[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("fails with a timeout when the stream goes silent for longer than the limit, without a retry", async () => {
    const gaps = SLOW_EVENTS.map((_, index) => (index === 3 ? 1_600 : 50));
    const server = await slowOpenAIServer(SLOW_EVENTS, gaps);
    servers.push(server);
    const error = (await openAI(server.baseURL)
      .invoke([new HumanMessage("payment errors?")])
      .catch((caught: unknown) => caught)) as Error;
    expect([error.name, error.message]).toEqual([
      "TimeoutError",
      "The model response stream sent nothing for 1000 ms (request timed out).",
    ]);
    expect(server.bodies).toHaveLength(1);
  });

  it("completes an Anthropic answer whose stream events arrive 300 ms apart for over 2 s", async () => {
    const server = await startAnthropicServer([
      {
        text: "Checking the logs.",
        toolUses: [{ id: "toolu_slow", name: "search_logs", input: { service: "payment-service" } }],
        usage: { input_tokens: 1_900, output_tokens: 25 },
        eventIntervalMs: 300,
      },
    ]);
    servers.push(server);
    const model = createAnthropicChatModel({
      model: "claude-test",
      baseURL: server.baseURL,
      apiKey: "sk-ant-test",
      timeoutMs: 1_000,
      maxRetries: 0,
    });
    const started = performance.now();
    const reply = normalizeModelMessage(await model.invoke([new HumanMessage("payment errors?")]));
    expect(performance.now() - started).toBeGreaterThan(2_000);
    expect(reply.content).toBe("Checking the logs.");
    expect(reply.tool_calls?.map(({ id, args }) => [id, args])).toEqual([
      ["toolu_slow", { service: "payment-service" }],
    ]);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 1_900, output_tokens: 25, total_tokens: 1_925 });
  });

  it("fails an Anthropic stream that goes silent for longer than the limit", async () => {
    const server = await startAnthropicServer([{ text: "slow", eventIntervalMs: 1_500 }]);
    servers.push(server);
    const model = createAnthropicChatModel({
      model: "claude-test",
      baseURL: server.baseURL,
      apiKey: "sk-ant-test",
      timeoutMs: 1_000,
      maxRetries: 0,
    });
    const error = (await model.invoke([new HumanMessage("hi")]).catch((caught: unknown) => caught)) as Error;
    expect([error.name, error.message]).toEqual([
      "TimeoutError",
      "The model response stream sent nothing for 1000 ms (request timed out).",
    ]);
  });

  it("rejects a cancelled Anthropic stream instead of returning the part that had arrived", async () => {
    const server = await startAnthropicServer([{ text: "a long answer cut short", eventIntervalMs: 300 }]);
    servers.push(server);
    const model = createAnthropicChatModel({
      model: "claude-test",
      baseURL: server.baseURL,
      apiKey: "sk-ant-test",
      timeoutMs: 1_000,
      maxRetries: 0,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_000);
    await expect(model.invoke([new HumanMessage("hi")], { signal: controller.signal })).rejects.toThrow();
    expect(controller.signal.aborted).toBe(true);
  });

  it("retries an Anthropic request whose response does not start within the limit", async () => {
    const server = await startAnthropicServer([{ text: "late", delayMs: 1_500 }, { text: "on time" }]);
    servers.push(server);
    const model = createAnthropicChatModel({
      model: "claude-test",
      baseURL: server.baseURL,
      apiKey: "sk-ant-test",
      timeoutMs: 1_000,
      maxRetries: 1,
    });
    const reply = await model.invoke([new HumanMessage("hi")]);
    expect(reply.content).toBe("on time");
    expect(server.requests).toHaveLength(2);
  });
});
