import { afterAll, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { createOpenAIChatModel } from "../../src/models/providers/openai-model.js";
import { countingRetries } from "../../src/models/retry-count.js";
import { startOpenAIServer, type OpenAITestServer, type Reply } from "../fixtures/openai-server.js";

const servers: OpenAITestServer[] = [];

/** A server of its own for each test: the tests run concurrently, so backoff waits overlap. */
async function serve(...replies: Reply[]): Promise<OpenAITestServer> {
  const server = await startOpenAIServer(replies);
  servers.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

function modelFor(server: OpenAITestServer, overrides: { maxRetries?: number; timeoutMs?: number } = {}) {
  return createOpenAIChatModel({
    model: "test-model",
    baseURL: server.baseURL,
    apiKey: "sk-test",
    timeoutMs: overrides.timeoutMs ?? 5_000,
    maxRetries: overrides.maxRetries ?? 2,
  });
}

const ok: Reply = { content: "fine" };

describe.concurrent("model request retries against a local OpenAI-compatible server", () => {
  it("retries a 429 without retry-after and succeeds on the second request", async () => {
    const server = await serve({ status: 429, error: { message: "Rate limit reached for requests" } }, ok);
    const { value: reply, retries } = await countingRetries(() => modelFor(server).invoke([new HumanMessage("hi")]));
    expect(reply.content).toBe("fine");
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
    // Counted for the model step's `retries` (events, chat spans).
    expect(retries).toBe(1);
  });

  it("retries a 500 and then succeeds", async () => {
    const server = await serve({ status: 500, error: { message: "The server had an error" } }, ok);
    const reply = await modelFor(server).invoke([new HumanMessage("hi")]);
    expect(reply.content).toBe("fine");
    expect(server.requests.map((request) => request.status)).toEqual([500, 200]);
  });

  it("never retries a 400 and reports the server's message", async () => {
    const server = await serve({ status: 400, error: { message: "Unsupported parameter: 'foo'" } }, ok);
    await expect(modelFor(server).invoke([new HumanMessage("hi")])).rejects.toThrow(
      /400.*Unsupported parameter: 'foo'/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("never retries a 401 or a 403", async () => {
    const unauthorized = await serve({ status: 401, error: { message: "Incorrect API key provided" } }, ok);
    const forbidden = await serve({ status: 403, error: { message: "Project does not have access to model" } }, ok);
    await expect(modelFor(unauthorized).invoke([new HumanMessage("hi")])).rejects.toThrow(/401/);
    await expect(modelFor(forbidden).invoke([new HumanMessage("hi")])).rejects.toThrow(/403/);
    expect(unauthorized.requests).toHaveLength(1);
    expect(forbidden.requests).toHaveLength(1);
  });

  it("does not retry a 429 that says the quota is exhausted", async () => {
    const server = await serve(
      { status: 429, error: { message: "You exceeded your current quota", code: "insufficient_quota" } },
      ok,
    );
    await expect(modelFor(server).invoke([new HumanMessage("hi")])).rejects.toThrow(/quota/);
    expect(server.requests).toHaveLength(1);
  });

  it("does not wait out a 429 whose retry-after is longer than a minute", async () => {
    const server = await serve({ status: 429, error: { message: "Slow down" }, headers: { "retry-after": "120" } }, ok);
    await expect(modelFor(server).invoke([new HumanMessage("hi")])).rejects.toThrow(/429/);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after maxRetries retries of a failing server", async () => {
    const server = await serve(
      { status: 503, error: { message: "overloaded" } },
      { status: 503, error: { message: "overloaded" } },
      ok,
    );
    await expect(modelFor(server, { maxRetries: 1 }).invoke([new HumanMessage("hi")])).rejects.toThrow(/503/);
    expect(server.requests).toHaveLength(2);
  });

  it("times out a hung attempt and retries it", async () => {
    const server = await serve({ content: "too late", delayMs: 3_000 }, ok);
    const reply = await modelFor(server, { timeoutMs: 300, maxRetries: 1 }).invoke([new HumanMessage("hi")]);
    expect(reply.content).toBe("fine");
    expect(server.requests).toHaveLength(2);
  });

  it("shows why the policy exists: the stock ChatOpenAI gives up on a 429 without retry-after", async () => {
    const server = await serve({ status: 429, error: { message: "Rate limit reached for requests" } }, ok);
    const stock = new ChatOpenAI({
      model: "test-model",
      apiKey: "sk-test",
      configuration: { baseURL: server.baseURL },
      maxRetries: 2,
    });
    await expect(stock.invoke([new HumanMessage("hi")])).rejects.toThrow(/429/);
    expect(server.requests).toHaveLength(1);
  });
});
