import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChatAnthropic } from "@langchain/anthropic";
import { loadChatModel } from "../../src/app/chat-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import {
  startAnthropicServer,
  type AnthropicRequest,
  type AnthropicTestServer,
  type WireBlock,
} from "../fixtures/anthropic-server.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
const user = { id: "tester", role: "operator" };

let server: AnthropicTestServer;
let opened: App;

beforeAll(async () => {
  server = await startAnthropicServer();
  // The whole provider path: anthropic:<model> with a key and a base URL, as from the environment.
  const model = await loadChatModel({
    OPSPILOT_MODEL: "anthropic:claude-test",
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: server.baseURL,
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

const types = (events: RunEvent[]) => events.map((event) => event.type);
const pauseOf = (events: RunEvent[]) =>
  events.find((event) => event.type === "loop_interrupt") as RunEvent & PauseValue;
const blocks = (request: AnthropicRequest, index: number): WireBlock[] => {
  const content = request.body.messages![index]!.content;
  return typeof content === "string" ? [{ type: "text", text: content }] : content!;
};
const results = (request: AnthropicRequest) =>
  request.body.messages!.flatMap((message) =>
    typeof message.content === "string" ? [] : message.content!.filter((block) => block.type === "tool_result"),
  );

describe("the loop through ChatAnthropic and a strict local Messages API server", () => {
  it("runs the seed flow: parallel reads, a params pause, an approval pause, then the answer", async () => {
    server.enqueue(
      {
        toolUses: [
          { id: "toolu_res", name: "search_resource", input: { query: "支付" } },
          { id: "toolu_docs", name: "search_docs", input: { query: "支付 报错" } },
          { id: "toolu_bad", name: "search_logs", input: { service: "no-such-service", environment: "prod" } },
        ],
        usage: { input_tokens: 1_900, output_tokens: 60 },
      },
      {
        text: "先看支付服务的错误日志。",
        toolUses: [{ id: "toolu_logs", name: "search_logs", input: { service: "payment-service", level: "ERROR" } }],
        usage: { input_tokens: 2_400, output_tokens: 40 },
      },
      {
        toolUses: [
          {
            id: "toolu_restart",
            name: "restart_service",
            input: { service: "payment-service", environment: "prod", reason: "RB-003: connection pool exhausted" },
          },
        ],
        usage: { input_tokens: 2_900, output_tokens: 45 },
      },
      {
        text: "支付服务在 prod 有 PAY-5031 报错，已按 RB-003 重启。",
        usage: { input_tokens: 3_300, output_tokens: 30 },
      },
    );

    const threadId = await opened.runtime.createThread(user);
    const first = await collectEvents(await opened.runtime.startRun({ threadId, message: SEED, user }));
    expect(types(first)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_result",
      "assistant_message",
      "tool_call",
      "loop_interrupt",
      "run_finished",
    ]);
    expect(
      first.filter((event) => event.type === "tool_result").map((event) => [event.callId, event.ok, event.errorCode]),
    ).toEqual([
      ["toolu_res", true, undefined],
      ["toolu_docs", true, undefined],
      ["toolu_bad", false, "not_found"],
    ]);
    const params = pauseOf(first);
    expect(params).toMatchObject({
      interruptType: "params_required",
      calls: [{ callId: "toolu_logs", tool: "search_logs", missing: [{ name: "environment" }] }],
    });

    const second = await collectEvents(
      await opened.runtime.resumeRun({
        threadId,
        user,
        resume: { decisions: [{ callId: "toolu_logs", action: "approve", params: { environment: "prod" } }] },
      }),
    );
    expect(types(second)).toEqual(["run_started", "tool_result", "tool_call", "loop_interrupt", "run_finished"]);
    const approval = pauseOf(second);
    expect(approval).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ callId: "toolu_restart", tool: "restart_service" }],
    });

    const third = await collectEvents(
      await opened.runtime.resumeRun({
        threadId,
        user,
        resume: {
          decisions: [{ callId: "toolu_restart", action: "approve", argsHash: approval.calls[0]!.argsHash }],
        },
      }),
    );
    expect(types(third)).toEqual(["run_started", "tool_result", "assistant_message", "run_finished"]);
    expect(third.find((event) => event.type === "assistant_message")).toMatchObject({
      content: "支付服务在 prod 有 PAY-5031 报错，已按 RB-003 重启。",
    });
    expect(third.at(-1)).toMatchObject({ stopReason: "final_answer" });

    // Every request met the API's rules, streamed, and carried the system prompt as the top-level field.
    expect(server.requests.map((request) => [request.status, request.violation])).toEqual([
      [200, undefined],
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    for (const request of server.requests) {
      expect(request.body.stream).toBe(true);
      expect(typeof request.body.system).toBe("string");
      expect(request.body.tools).toHaveLength(7);
      expect(request.headers["x-api-key"]).toBe("sk-ant-test");
    }

    // The parallel results travel together in the user turn right after the three tool_use blocks.
    const second_request = server.requests[1]!;
    expect(second_request.body.messages!.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(blocks(second_request, 1).map((block) => [block.type, block.id])).toEqual([
      ["tool_use", "toolu_res"],
      ["tool_use", "toolu_docs"],
      ["tool_use", "toolu_bad"],
    ]);
    expect(blocks(second_request, 2).map((block) => [block.type, block.tool_use_id, block.is_error])).toEqual([
      ["tool_result", "toolu_res", undefined],
      ["tool_result", "toolu_docs", undefined],
      ["tool_result", "toolu_bad", true],
    ]);

    const last = server.requests.at(-1)!;
    expect(last.body.messages!.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(blocks(last, 3).map((block) => [block.type, block.text ?? block.id])).toEqual([
      ["text", "先看支付服务的错误日志。"],
      ["tool_use", "toolu_logs"],
    ]);
    expect(results(last).map((block) => [block.tool_use_id, block.is_error])).toEqual([
      ["toolu_res", undefined],
      ["toolu_docs", undefined],
      ["toolu_bad", true],
      ["toolu_logs", undefined],
      ["toolu_restart", undefined],
    ]);
    const restart = JSON.parse(String(results(last).at(-1)!.content)) as { ok: boolean };
    expect(restart.ok).toBe(true);

    // Token usage is recorded per step as the API reported it.
    const records = await opened.storage.threadRecords(threadId);
    expect(records.steps.map((step) => [step.input_tokens, step.output_tokens])).toEqual([
      [1_900, 60],
      [2_400, 40],
      [2_900, 45],
      [3_300, 30],
    ]);
  });

  it("retries a 529 overload and a 429, and never a 400", async () => {
    server.enqueue(
      { status: 529, message: "Overloaded" },
      { status: 429, message: "Rate limited" },
      { text: "你好！" },
      { status: 400, errorType: "invalid_request_error", message: "max_tokens: too large" },
      { text: "never used" },
    );
    const threadId = await opened.runtime.createThread(user);
    const ok = await collectEvents(await opened.runtime.startRun({ threadId, message: "你好", user }));
    expect(ok.at(-1)).toMatchObject({ stopReason: "final_answer" });
    const failed = await collectEvents(await opened.runtime.startRun({ threadId, message: "Hello again", user }));
    expect(failed.at(-1)).toMatchObject({ stopReason: "error" });
    expect(server.requests.map((request) => request.status)).toEqual([529, 429, 200, 400]);
    expect(server.pending()).toBe(1);
  });

  it("is a ChatAnthropic that never reads the key or the URL from the process environment", async () => {
    const model = (await loadChatModel({
      OPSPILOT_MODEL: "anthropic:claude-test",
      ANTHROPIC_API_KEY: "sk-ant-1",
      ANTHROPIC_BASE_URL: server.baseURL,
      OPSPILOT_MODEL_TIMEOUT_MS: 7_000,
      OPSPILOT_MODEL_MAX_RETRIES: 3,
    })) as ChatAnthropic;
    expect(model).toBeInstanceOf(ChatAnthropic);
    expect([model.model, model.apiKey, model.apiUrl, model.streaming]).toEqual([
      "claude-test",
      "sk-ant-1",
      server.baseURL,
      true,
    ]);
    expect(model.clientOptions.timeout).toBe(7_000);
    expect((model.caller as unknown as { maxRetries: number }).maxRetries).toBe(3);
  });
});
