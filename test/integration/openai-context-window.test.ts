import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { defineTool, type ToolDefinition } from "../../src/tools/types.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { loadChatModel } from "../../src/app/chat-model.js";
import {
  startOpenAIServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ScriptedReply,
} from "../fixtures/openai-server.js";

/** The window the mock enforces: prompt tokens over this are refused, as OpenAI refuses them. */
const WINDOW = 8_000;
const MAX_PROMPT_TOKENS = 7_000;
/** The default target of this window: 6,144 of its 7,000-token prompt limit. */
const TARGET_TOKENS = 6_144;
const TURNS = 40;
const user = { id: "tester", role: "operator" };

const encoder = new Tiktoken(o200k);
const counted = new Map<string, number>();
function tokens(text: string): number {
  let value = counted.get(text);
  if (value === undefined) {
    value = encoder.encode(text, [], []).length;
    counted.set(text, value);
  }
  return value;
}

/** Prompt tokens as OpenAI's guide counts them: 3 per message, role, content, name, calls and ids; the tools' JSON; 3 to prime the reply. */
function promptTokens(body: RecordedRequest["body"]): number {
  let total = 3 + (body.tools ? tokens(JSON.stringify(body.tools)) : 0);
  for (const message of body.messages) {
    total += 3 + tokens(message.role);
    total += tokens(typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? ""));
    if (message.tool_calls) total += tokens(JSON.stringify(message.tool_calls));
    if (message.tool_call_id) total += tokens(message.tool_call_id);
  }
  return total;
}

/** About 20 KB of log lines of one turn, English on odd turns and Chinese on even ones, with a deploy id only that turn has. */
function incidentLog(turn: number) {
  const lines: string[] = [];
  for (let i = 0; JSON.stringify(lines).length < 20_000; i += 1)
    lines.push(
      turn % 2 === 0
        ? `08:${String(i % 60).padStart(2, "0")} 错误 支付服务 请求 ${i} 失败：数据库连接池耗尽，等待 ${(i * 37) % 900} 毫秒后超时。`
        : `08:${String(i % 60).padStart(2, "0")} ERROR payment-service request ${i} failed: pool exhausted after ${(i * 37) % 900} ms`,
    );
  return { turn, deploy: `DEP-${1000 + turn * 37}`, code: turn % 2 === 0 ? "PAY-5031" : "PAY-4002", lines };
}

const searchIncident: ToolDefinition = defineTool({
  name: "search_incident",
  description: "Read the incident log of one turn of the drill.",
  schema: z.object({ turn: z.number().int().describe("Which turn of the drill") }),
  readOnly: true,
  risk: "low",
  timeoutMs: 5_000,
  run: async ({ turn }) => incidentLog(turn),
  summarize: (result) => {
    const log = result as ReturnType<typeof incidentLog>;
    return [`turn ${log.turn} deploy ${log.deploy}`, `${log.lines.length} error lines, code ${log.code}`];
  },
});

let server: OpenAITestServer;
let app: App;
/** Prompt tokens of each request the mock answered or refused, in order. */
const sizes: number[] = [];
/** Refusals to send, whatever its size, to the next requests that carry a tool result (recovery tests). */
let forcedRefusals = 0;

const refusal = (count: number): ScriptedReply => ({
  status: 400,
  error: {
    message: `This model's maximum context length is ${MAX_PROMPT_TOKENS} tokens. However, your messages resulted in ${count} tokens. Please reduce the length of the messages.`,
    type: "invalid_request_error",
    code: "context_length_exceeded",
  },
});

/** The model behind the mock: refuses what does not fit, calls the tool for a question, answers a result. */
function brain(request: RecordedRequest): ScriptedReply {
  const count = promptTokens(request.body);
  sizes.push(count);
  if (count > MAX_PROMPT_TOKENS) return refusal(count);
  const last = request.body.messages.at(-1)!;
  if (forcedRefusals > 0 && last.role === "tool") {
    forcedRefusals -= 1;
    return refusal(MAX_PROMPT_TOKENS + 1);
  }
  const usage = { prompt_tokens: count, completion_tokens: 20 };
  if (last.role === "user") {
    const turn = Number(/(\d+)/.exec(String(last.content))?.[1] ?? 0);
    return { toolCalls: [{ name: "search_incident", arguments: JSON.stringify({ turn }) }], usage };
  }
  return { content: `Checked: ${String(last.content).slice(0, 40)}`, usage };
}

beforeAll(async () => {
  server = await startOpenAIServer();
  const env = loadEnv({
    OPSPILOT_MODEL: "openai:gpt-4o-mini",
    OPENAI_BASE_URL: server.baseURL,
    OPSPILOT_CONTEXT_TOKENS: String(WINDOW),
    OPSPILOT_MODEL_MAX_RETRIES: "0",
  });
  app = createApp({ env, dbPath: ":memory:", model: await loadChatModel(env), tools: () => [searchIncident] });
});
afterAll(async () => {
  await app.close();
  await server.close();
});
beforeEach(() => {
  server.reset();
  sizes.length = 0;
  forcedRefusals = 0;
  server.enqueue(...Array.from({ length: 400 }, () => brain));
});

async function ask(threadId: string, message: string): Promise<RunEvent[]> {
  return collectEvents(await app.runtime.startRun({ threadId, message, user }));
}

const question = (turn: number) =>
  turn % 2 === 0
    ? `第 ${turn} 轮：支付服务的日志里有什么报错？`
    : `Turn ${turn}: what errors do the payment logs show?`;

describe("a long thread against a model that refuses requests over its window", () => {
  it("runs 40 turns of 20 KB results in English and Chinese without a 400, pairing every request, remembering turn 2", async () => {
    const threadId = await app.runtime.createThread(user);
    for (let turn = 1; turn <= TURNS; turn += 1) {
      const events = await ask(threadId, question(turn));
      expect(events.at(-1), `turn ${turn}`).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    }
    const requests = server.requests;
    expect(requests).toHaveLength(TURNS * 2);
    expect(requests.map((request) => request.status)).toEqual(requests.map(() => 200));
    expect(requests.filter((request) => request.violation !== undefined)).toEqual([]);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_PROMPT_TOKENS);

    // Turn 2's deploy id is only in turn 2's result: at turn 40 it comes from working memory.
    const fact = incidentLog(2).deploy;
    for (const request of requests.slice(-2)) {
      const system = request.body.messages[0]!;
      expect(system.role).toBe("system");
      expect(String(system.content)).toContain(fact);
      expect(
        request.body.messages.filter((message) => message.role === "tool").map((m) => String(m.content)),
      ).not.toContain(expect.stringContaining(fact));
    }

    // Requests grow while working memory fills its share, then stay flat near the target, under the limit.
    const perTurn = (from: number, to: number) => {
      const slice = sizes.slice((from - 1) * 2, to * 2);
      return slice.reduce((sum, size) => sum + size, 0) / slice.length;
    };
    expect(perTurn(31, 40) / perTurn(21, 30)).toBeLessThan(1.05);
    expect(perTurn(21, 30)).toBeGreaterThan(TARGET_TOKENS * 0.85);
    expect(perTurn(31, 40)).toBeLessThanOrEqual(TARGET_TOKENS);

    const { messages } = await app.runtime.getThread(threadId, user);
    expect(messages.filter((message) => message.role === "tool")).toHaveLength(TURNS);
  }, 180_000);

  it("retries once after one context_length_exceeded, with a smaller request, and answers", async () => {
    const threadId = await app.runtime.createThread(user);
    await ask(threadId, question(1));
    forcedRefusals = 1;
    const events = await ask(threadId, question(2));
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200, 400, 200]);
    // The retry left turn 1 to working memory: it is smaller and within the harder limit.
    expect(sizes[4]!).toBeLessThan(sizes[3]!);
    expect(sizes[4]!).toBeLessThanOrEqual(Math.floor((WINDOW - 1_000) * 0.6));
    expect(String(server.requests[4]!.body.messages[0]!.content)).toContain(incidentLog(1).deploy);
  });

  it("stops readably after two in a row, and the next run on the thread works", async () => {
    const threadId = await app.runtime.createThread(user);
    await ask(threadId, question(1));
    forcedRefusals = 2;
    const refused = await ask(threadId, question(2));
    expect(refused.at(-1)).toMatchObject({ type: "run_finished", stopReason: "error" });
    const message = refused.find((event) => event.type === "assistant_message") as { content: string } | undefined;
    expect(message?.content).toMatch(/^模型认为请求超出了它的上下文窗口/);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200, 400, 400]);

    const next = await ask(threadId, question(3));
    expect(next.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect((await app.runtime.getThread(threadId, user)).status).toBe("idle");
  });
});
