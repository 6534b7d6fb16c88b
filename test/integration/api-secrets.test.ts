import { afterEach, describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const DB_PASSWORD = "Tr0ub4dor-and-3";
const SECRETS = [AWS_SECRET, DB_PASSWORD, "wJalrXUtnFEMI", "Tr0ub4dor"];

describe("secrets a model copies into tool args over HTTP", () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close());

  it("never reach the tool_call event, /events, GET thread or /results", async () => {
    const query = `rotate ${AWS_SECRET} on postgres://ops:${DB_PASSWORD}@db:5432/orders`;
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          callsMessage([{ name: "read_a", id: "call_leak", args: { query, approved: true } }]),
          answerMessage("The lookup is done."),
        ],
      }),
      tools: () => testTools(),
    });
    const { client } = server;
    const threadId = await client.createThread();
    const masked = "rotate [key masked] on postgres://ops:[masked]@db:5432/orders";

    const streamed = await client.run(threadId, "look up the credentials");
    expect(streamed.filter((event) => event.type === "tool_call")).toEqual([
      expect.objectContaining({ callId: "call_leak", tool: "read_a", args: { query: masked } }),
    ]);
    expect(await client.eventsAfter(threadId, 0)).toEqual(streamed);

    const thread = await client.thread(threadId);
    const messages = thread.body.messages as Array<Record<string, unknown>>;
    expect(messages.find((message) => message.role === "assistant" && message.toolCalls)?.toolCalls).toEqual([
      { callId: "call_leak", tool: "read_a", args: { query: masked } },
    ]);

    const result = await client.request("GET", `/api/threads/${threadId}/results/call_leak`);
    const resultText = await result.text();
    expect(JSON.parse(resultText)).toEqual({
      callId: "call_leak",
      tool: "read_a",
      result: { query: masked, found: [`read_a:${masked}`], contact: "[email masked]" },
    });

    const events = await (await client.request("GET", `/api/threads/${threadId}/events?after=0`)).text();
    for (const text of [JSON.stringify(streamed), events, JSON.stringify(thread.body), resultText])
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(server.logged).toEqual([]);
  });
});
