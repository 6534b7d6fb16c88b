import { afterEach, describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { frameToEvent, readSseFrames, startTestServer, waitUntilSettled, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

/** Opens a run stream and returns its frames as events, one at a time. */
async function openRun(server: TestServer, threadId: string, message: string, signal?: AbortSignal) {
  const response = await server.client.request("POST", `/api/threads/${threadId}/runs`, { message }, { signal });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const frames = readSseFrames(response.body!);
  return {
    async next(): Promise<RunEvent> {
      const { done, value } = await frames.next();
      if (done) throw new Error("stream ended");
      return frameToEvent(value);
    },
    async rest(): Promise<RunEvent[]> {
      const events: RunEvent[] = [];
      for await (const frame of frames) events.push(frameToEvent(frame));
      return events;
    },
    stop: () => frames.return(undefined),
  };
}

describe("run streams over HTTP", () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close());

  it("refuses a second run or a resume while one runs, then cancels the run with a cancelled result per call", async () => {
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          callsMessage([
            { name: "read_a", args: { query: "x" } },
            { name: "read_b", args: { query: "y" } },
          ]),
        ],
        onExhausted: "answer",
      }),
      tools: () => testTools({ readDelayMs: 10_000 }),
    });
    const { client } = server;
    const threadId = await client.createThread();
    const stream = await openRun(server, threadId, "look up x and y");
    const seen = [await stream.next(), await stream.next(), await stream.next()];
    expect(seen.map((event) => event.type)).toEqual(["run_started", "tool_call", "tool_call"]);
    expect((await client.thread(threadId)).body.status).toBe("running");

    for (const [path, body] of [
      ["runs", { message: "again" }],
      ["resume", { decisions: [{ callId: "x", action: "reject" }] }],
    ] as const) {
      const busy = await client.request("POST", `/api/threads/${threadId}/${path}`, body);
      expect(busy.status).toBe(409);
      expect(await busy.json()).toEqual({ error: { code: "thread_busy", message: expect.any(String) } });
    }

    const cancel = await client.request("POST", `/api/threads/${threadId}/cancel`);
    expect(cancel.status).toBe(202);
    expect(await cancel.json()).toEqual({ cancelled: true });
    const events = [...seen, ...(await stream.rest())];
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    const callIds = events.filter((event) => event.type === "tool_call").map((event) => event.callId);
    const results = events.filter((event) => event.type === "tool_result");
    expect(results.map((event) => [event.callId, event.errorCode])).toEqual(
      callIds.map((callId) => [callId, "cancelled"]),
    );
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "cancelled" });

    const after = await client.thread(threadId);
    expect(after.body.status).toBe("idle");
    const messages = after.body.messages as Array<{ role: string }>;
    expect(messages.filter((message) => message.role === "user")).toHaveLength(1);
    const idleCancel = await client.request("POST", `/api/threads/${threadId}/cancel`);
    expect({ status: idleCancel.status, body: await idleCancel.json() }).toEqual({
      status: 202,
      body: { cancelled: false },
    });
  });

  it("keeps a run going when the client drops, and /events?after= gives exactly the missing events", async () => {
    const step = (name: string) => callsMessage([{ name, args: { query: name } }]);
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [step("read_a"), step("read_b"), step("read_a"), answerMessage("All three lookups are done.")],
        delayMs: 120,
      }),
      tools: () => testTools(),
    });
    const { client } = server;
    const threadId = await client.createThread();
    const connection = new AbortController();
    const stream = await openRun(server, threadId, "three lookups", connection.signal);
    const firstHalf = [await stream.next(), await stream.next(), await stream.next()];
    await stream.stop();
    connection.abort();

    const settled = await waitUntilSettled(client, threadId);
    expect(settled.status).toBe("idle");
    const lastId = firstHalf.at(-1)!.seq;
    const caughtUp = await client.eventsAfter(threadId, lastId);
    const union = [...firstHalf, ...caughtUp];
    expect(union.map((event) => event.type)).toEqual([
      "run_started",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(union.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(union).toEqual(await client.eventsAfter(threadId, 0));
    expect(union.at(-1)).toMatchObject({ stopReason: "final_answer" });
    expect(server.logged).toEqual([]);
  });
});
