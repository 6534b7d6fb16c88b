import type { AIMessage } from "@langchain/core/messages";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/file.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { pauseNotice, pauseText } from "../../src/service/notices/pause-webhook-body.js";
import { startSearchStandin, type SearchStandin } from "../fixtures/elasticsearch-standin.js";
import { ApiClient, startTestServer, type TestServer } from "../fixtures/http.js";
import { CANARIES, INJECTION } from "../fixtures/log-scenarios.js";
import { startLokiStandin, type LokiStandin } from "../fixtures/loki-standin.js";
import { pauseOf } from "../fixtures/mcp-app.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptStep } from "../fixtures/scripted-model.js";
import { egressTestTools } from "../fixtures/test-tools.js";

/**
 * Log content is untrusted: an instruction in a line leads to a pause, never to an egress call,
 * and a secret in a line reaches neither the model, nor the page (GET thread, events), nor a
 * notice unmasked. Then the situations of issue 48 played in English and Chinese with the
 * scripted model (eval scenarios run on the demo tools and cannot point a toolset at a stand-in).
 */

const TOKEN = "oncall-token";
let loki: LokiStandin;
let search: SearchStandin;
let server: TestServer | undefined;
const sent: Array<{ channel: string; message: string }> = [];
const now = Date.now();
const START = new Date(now - 2 * 3_600_000).toISOString();

beforeAll(async () => {
  loki = await startLokiStandin({ now });
  search = await startSearchStandin({ now });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await loki.close();
  await search.close();
});

/** A server with both log toolsets, `notify_channel` (an egress write) and a scripted model. */
async function serverWith(script: ScriptStep[]) {
  const model = new ScriptedChatModel({ script, onExhausted: "answer" });
  server = await startTestServer({
    model,
    tools: () => egressTestTools({ sent }).filter((tool) => tool.name === "notify_channel"),
    config: parseConfig({ toolsets: { loki: { url: loki.url }, elasticsearch: { url: search.url } } }, {}),
    auth: { tokens: new Map([[TOKEN, { id: "ann", role: "operator" }]]) },
  });
  const client = new ApiClient(server.url, TOKEN);
  const threadId = await client.createThread();
  return { model, client, threadId };
}

/** The text of the first pattern's first example in the last tool result the model read. */
function firstExample(messages: Array<{ getType(): string; content: unknown }>): string {
  const result = [...messages].reverse().find((message) => message.getType() === "tool")!;
  const observation = JSON.parse(String(result.content)) as { data: { patterns: Array<{ examples: string[] }> } };
  return observation.data.patterns[0]!.examples[0]!;
}

describe("log content is untrusted", () => {
  it("pauses the egress call a log line's instruction asks for, and posts nothing", async () => {
    const { client, threadId } = await serverWith([
      callsMessage([{ name: "loki_query", args: { query: '{app="notifier"}', start: START }, id: "read" }]),
      ({ messages }) =>
        callsMessage([
          { name: "notify_channel", args: { channel: "#general", message: firstExample(messages) }, id: "post" },
        ]),
    ]);
    const events = await client.run(threadId, "why do notifications fail?");
    const pause = pauseOf(events);
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ callId: "post", tool: "notify_channel" }],
    });
    expect(JSON.stringify(pause)).toContain(INJECTION);
    expect(sent).toEqual([]);
  });

  it("never shows a canary secret of a log line unmasked to the model, the page, the events or a notice", async () => {
    const { model, client, threadId } = await serverWith([
      callsMessage([
        { name: "loki_query", args: { query: '{app="auth"}', start: START }, id: "l1" },
        { name: "elasticsearch_search", args: { query: "service.name:auth", start: START }, id: "e1" },
      ]),
      ({ messages }) =>
        callsMessage([
          { name: "notify_channel", args: { channel: "#ops", message: firstExample(messages) }, id: "n1" },
        ]),
    ]);
    const events: RunEvent[] = await client.run(threadId, "what happened to logins?");
    const shown = [
      JSON.stringify(model.calls.map((call) => call.messages.map((message) => (message as AIMessage).content))),
      JSON.stringify((await client.thread(threadId)).body),
      JSON.stringify(events),
      JSON.stringify(await client.eventsAfter(threadId, 0)),
      pauseText(pauseNotice(pauseOf(events) as never, "http://opspilot.example/")),
    ];
    expect(shown[0]).toContain("[key masked]");
    for (const text of shown) for (const canary of Object.values(CANARIES)) expect(text).not.toContain(canary);
  });
});

/** One situation of issue 48: the question in each language, the read, and what the answer must name. */
const SITUATIONS = [
  {
    id: "payment-timeouts-after-deploy",
    questions: ["Why is payment-service failing since the deploy?", "支付服务发布之后为什么一直失败？"],
    call: { name: "loki_query", args: { query: '{namespace="payments", app="payment-service"}', start: START } },
    cause: "bank-gateway timeout",
  },
  {
    id: "rare-cause-in-noisy-log",
    questions: ["Checkout is broken, what do its logs say?", "结账服务坏了，日志里说了什么？"],
    call: { name: "elasticsearch_search", args: { filters: { "service.name": "checkout" }, start: START } },
    cause: "x509: certificate has expired",
  },
  {
    id: "flood-within-budget",
    questions: ["What is the ingest service logging?", "数据摄取服务在打什么日志？"],
    call: { name: "loki_query", args: { query: '{app="ingest"}', start: START } },
    cause: "connection reset by peer",
  },
] as const;

describe("the log situations, played with the scripted model in English and Chinese", () => {
  for (const situation of SITUATIONS)
    for (const [language, question] of situation.questions.entries())
      it(`${situation.id} (${language === 0 ? "en" : "zh"}): the first error pattern names the cause, within the cap`, async () => {
        const { client, threadId } = await serverWith([
          callsMessage([{ ...situation.call, id: "read" }]),
          ({ messages }) => answerMessage(`Cause: ${firstExample(messages)}`),
        ]);
        const events = await client.run(threadId, question);
        expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
        const result = events.find((event) => event.type === "tool_result");
        expect(result).toMatchObject({ ok: true });
        const messages = (await server!.graph.getState({ configurable: { thread_id: threadId } })).values
          .messages as Array<{ getType(): string; content: unknown }>;
        const read = messages.find((message) => message.getType() === "tool")!;
        expect(String(read.content).length).toBeLessThanOrEqual(4_000);
        expect(String(read.content)).not.toContain("read_result");
        expect(String(messages.at(-1)!.content)).toMatch(new RegExp(`^Cause: .*${situation.cause}`));
      });
});
