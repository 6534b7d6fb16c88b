import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadChatModel } from "../../src/app/chat-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import {
  startOpenAIServer,
  type OpenAITestServer,
  type RecordedRequest,
  type WireMessage,
} from "../fixtures/openai-server.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
const user = { id: "tester", role: "operator" };

let server: OpenAITestServer;
let opened: App;

beforeAll(async () => {
  server = await startOpenAIServer();
  // The whole provider path: openai:<model> at a loopback URL, no key needed.
  const model = await loadChatModel({
    OPSPILOT_MODEL: "openai:test-model",
    OPENAI_BASE_URL: server.baseURL,
    OPSPILOT_MODEL_TIMEOUT_MS: 5_000,
    OPSPILOT_MODEL_MAX_RETRIES: 2,
  });
  opened = createApp({ env: loadEnv({}), dbPath: ":memory:", model });
});
afterAll(async () => {
  await opened.close();
  await server.close();
});
beforeEach(() => server.reset());

async function run(message: string, threadId?: string) {
  const thread = threadId ?? (await opened.runtime.createThread(user));
  return {
    threadId: thread,
    events: await collectEvents(await opened.runtime.startRun({ threadId: thread, message, user })),
  };
}

const types = (events: RunEvent[]) => events.map((event) => event.type);
const toolMessages = (request: RecordedRequest) => request.body.messages.filter((message) => message.role === "tool");
const observation = (message: WireMessage) =>
  JSON.parse(typeof message.content === "string" ? message.content : JSON.stringify(message.content)) as {
    ok: boolean;
    errorCode?: string;
  };

describe("the loop through ChatOpenAI and a local OpenAI-compatible server", () => {
  it("runs parallel calls, a failing call, a pause and a final answer with every request well paired", async () => {
    server.enqueue(
      {
        toolCalls: [
          { name: "search_resource", arguments: '{"query":"支付"}' },
          { name: "search_docs", arguments: '{"query":"支付"}' },
        ],
      },
      { toolCalls: [{ name: "search_logs", arguments: '{"service":"no-such-service","environment":"prod"}' }] },
      { toolCalls: [{ name: "search_logs", arguments: '{"service":"payment-service","level":"ERROR"}' }] },
      { content: "支付服务在 prod 有 PAY-5031 报错，参考 RB-003。" },
    );
    const { threadId, events } = await run(SEED);
    expect(types(events)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_call",
      "tool_result",
      "tool_call",
      "loop_interrupt",
      "run_finished",
    ]);
    const results = events.filter((event) => event.type === "tool_result");
    expect(results.map((event) => [event.tool, event.ok, event.errorCode])).toEqual([
      ["search_resource", true, undefined],
      ["search_docs", true, undefined],
      ["search_logs", false, "not_found"],
    ]);
    const pause = events.find((event) => event.type === "loop_interrupt") as RunEvent & PauseValue;
    expect(pause.calls[0]).toMatchObject({ tool: "search_logs", missing: [{ name: "environment" }] });

    const resumed = await collectEvents(
      await opened.runtime.resumeRun({
        threadId,
        user,
        resume: { decisions: [{ callId: pause.calls[0]!.callId, action: "approve", params: { environment: "prod" } }] },
      }),
    );
    expect(types(resumed)).toEqual(["run_started", "tool_result", "assistant_message", "run_finished"]);
    expect(resumed.at(-1)).toMatchObject({ stopReason: "final_answer" });
    expect(resumed.find((event) => event.type === "assistant_message")).toMatchObject({
      content: "支付服务在 prod 有 PAY-5031 报错，参考 RB-003。",
    });

    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200, 200]);
    expect(server.requests.every((request) => request.violation === undefined)).toBe(true);
    expect(server.requests.every((request) => request.body.tools?.length === 7)).toBe(true);
    const last = server.requests.at(-1)!;
    expect(
      toolMessages(last)
        .map(observation)
        .map((entry) => [entry.ok, entry.errorCode]),
    ).toEqual([
      [true, undefined],
      [true, undefined],
      [false, "not_found"],
      [true, undefined],
    ]);
  });

  it("retries a 429 from the model endpoint and finishes the run", async () => {
    server.enqueue({ status: 429, error: { message: "Rate limit reached" } }, { content: "你好！" });
    const { events } = await run("你好");
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it("stops with reason error and a readable message when the endpoint answers 400", async () => {
    server.enqueue({ status: 400, error: { message: "Invalid value for 'model'" } }, { content: "never used" });
    const { threadId, events } = await run("Check the payment service's recent errors");
    expect(server.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "error" });
    const message = events.find((event) => event.type === "assistant_message") as
      (RunEvent & { content: string }) | undefined;
    expect(message?.content).toMatch(/rejected the request \(HTTP 400\)/);
    expect(message?.content).not.toMatch(/at .*\.js|Error:/);
    expect((await opened.runtime.getThread(threadId, user)).status).toBe("idle");
  });

  it("leaves no abort listener behind on the run's signal, however many model calls the run makes", async () => {
    // The OpenAI SDK adds a listener to each request's signal and never removes it; past ten on one
    // signal, Node warns of a leak. Twelve model calls in one run.
    const leaks: Error[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === "MaxListenersExceededWarning") leaks.push(warning);
    };
    process.on("warning", onWarning);
    try {
      for (let step = 0; step < 11; step += 1)
        server.enqueue({
          toolCalls: [{ name: "search_resource", arguments: JSON.stringify({ query: `service ${step}` }) }],
        });
      server.enqueue({ content: "Checked eleven services." });
      const thread = await opened.runtime.createThread(user);
      const events = await collectEvents(
        await opened.runtime.startRun({
          threadId: thread,
          message: "check every service",
          user,
          options: { maxSteps: 15 },
        }),
      );
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 12 });
      expect(server.requests).toHaveLength(12);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(leaks).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("recovers malformed arguments and ids reused within and across turns, keeping the pairing intact", async () => {
    const reusedIds = {
      toolCalls: [
        { id: "call_0", name: "search_resource", arguments: '{"query":"支付"}' },
        { id: "call_0", name: "search_docs", arguments: '{"query": 支付}' },
      ],
    };
    server.enqueue(reusedIds, { content: "第一轮结束。" }, reusedIds, { content: "第二轮结束。" });
    const first = await run("看看支付服务和相关文档");
    expect(first.events.at(-1)).toMatchObject({ stopReason: "final_answer" });
    const second = await run("再看一次支付服务和相关文档", first.threadId);
    expect(second.events.at(-1)).toMatchObject({ stopReason: "final_answer" });

    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200, 200]);
    const last = server.requests.at(-1)!;
    const callIds = last.body.messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
    expect(callIds).toHaveLength(4);
    expect(new Set(callIds).size).toBe(4);
    expect(
      toolMessages(last)
        .map((message) => message.tool_call_id)
        .sort(),
    ).toEqual([...callIds].sort());
    const invalid = toolMessages(last)
      .map(observation)
      .filter((entry) => !entry.ok);
    expect(invalid.map((entry) => entry.errorCode)).toEqual(["invalid_args", "invalid_args"]);
    const folded = last.body.messages
      .flatMap((message) => message.tool_calls ?? [])
      .filter((call) => call.function?.name === "search_docs");
    expect(folded.map((call) => call.function?.arguments)).toEqual(["{}", "{}"]);
  });
});
