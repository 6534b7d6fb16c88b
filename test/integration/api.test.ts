import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { startTestServer, type ApiClient, type TestServer } from "../fixtures/http.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";

const types = (events: RunEvent[]) => events.map((event) => event.type);
const interruptOf = (events: RunEvent[]) =>
  events.find((event) => event.type === "loop_interrupt") as RunEvent & PauseValue;

/** Sends a request and returns its status and JSON body. */
async function call(client: ApiClient, method: string, path: string, body?: unknown) {
  const response = await client.request(method, path, body);
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as { error?: { code: string; message: string } } };
}

describe("the HTTP API over the demo model", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    expect(server.logged).toEqual([]);
    await server.close();
  });

  it("answers /healthz and creates threads", async () => {
    expect(await call(server.client, "GET", "/healthz")).toMatchObject({ status: 200, body: { ok: true } });
    const created = await server.client.request("POST", "/api/threads");
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ threadId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it("streams the seed question in order, pauses for the environment, and finishes after the resume", async () => {
    const { client } = server;
    const threadId = await client.createThread();
    const first = await client.run(threadId, SEED);
    expect(types(first)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_call",
      "loop_interrupt",
      "run_finished",
    ]);
    expect(first.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(first.every((event) => event.threadId === threadId && event.runId === first[0].runId)).toBe(true);
    expect(first.filter((event) => event.type === "tool_call").map((event) => event.tool)).toEqual([
      "search_resource",
      "search_docs",
      "search_logs",
    ]);
    expect(first.filter((event) => event.type === "tool_result").map((event) => event.ok)).toEqual([true, true]);
    const pause = interruptOf(first);
    expect(pause.interruptType).toBe("params_required");
    expect(pause.calls).toHaveLength(1);
    expect(pause.calls[0]).toMatchObject({
      tool: "search_logs",
      missing: [{ name: "environment", enum: expect.arrayContaining(["prod"]) }],
    });
    expect(first.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });

    const paused = await client.thread(threadId);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      threadId,
      status: "interrupted",
      interrupt: { interruptId: pause.interruptId, calls: pause.calls },
    });

    const resume = {
      decisions: [{ callId: pause.calls[0].callId, action: "approve", params: { environment: "prod" } }],
    };
    const second = await client.resume(threadId, resume);
    expect(types(second)).toEqual(["run_started", "tool_result", "assistant_message", "run_finished"]);
    expect(second.map((event) => event.seq)).toEqual([9, 10, 11, 12]);
    expect(second[1]).toMatchObject({ callId: pause.calls[0].callId, tool: "search_logs", ok: true });
    expect(second.at(-1)).toMatchObject({ stopReason: "final_answer" });

    const done = await client.thread(threadId);
    expect(done.body.status).toBe("idle");
    expect(done.body.interrupt).toBeUndefined();
    const messages = done.body.messages as Array<{ role: string }>;
    expect(messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(await client.eventsAfter(threadId, 0)).toEqual([...first, ...second]);
    expect(await client.eventsAfter(threadId, 8)).toEqual(second);

    const logsCall = pause.calls[0].callId;
    const full = await call(client, "GET", `/api/threads/${threadId}/results/${logsCall}`);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({
      callId: logsCall,
      tool: "search_logs",
      result: { service: "payment-service", environment: "prod", total: 33 },
    });
    expect(await call(client, "GET", `/api/threads/${threadId}/results/no-such-call`)).toMatchObject({
      status: 404,
      body: { error: { code: "result_not_found" } },
    });

    const records = (await call(client, "GET", `/api/threads/${threadId}/records`)).body as unknown as Record<
      string,
      Array<Record<string, unknown>>
    >;
    expect(records.runs).toHaveLength(1);
    expect(records.runs[0]).toMatchObject({
      thread_id: threadId,
      user_id: "local",
      stop_reason: "final_answer",
      steps: 3,
      resumed: 1,
    });
    expect(records.toolCalls.map((row) => [row.tool, row.outcome])).toEqual([
      ["search_resource", "ok"],
      ["search_docs", "ok"],
      ["search_logs", "ok"],
    ]);
    expect(records.decisions).toMatchObject([{ call_id: logsCall, action: "approve" }]);
    const summary = await call(client, "GET", "/api/records/summary");
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({
      runs: 1,
      averageSteps: 3,
      toolCalls: 3,
      toolFailureRate: 0,
      stopReasons: { final_answer: 1 },
      resumedAndFinished: 1,
      pauses: { paused: 1, resumedAndFinished: 1, resumedAndStopped: 0, cancelled: 0, waiting: 0, resumeFinishRate: 1 },
      waitingPauses: [],
    });
  });

  it("runs an approved restart exactly once", async () => {
    const { client } = server;
    const threadId = await client.createThread();
    const pause = interruptOf(await client.run(threadId, "重启支付服务"));
    expect(pause.calls[0]).toMatchObject({ tool: "restart_service", risk: "high" });
    const { callId, argsHash } = pause.calls[0];
    const events = await client.resume(threadId, {
      decisions: [{ callId, argsHash, action: "approve", params: { environment: "prod" } }],
    });
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ tool: "restart_service", ok: true });
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer" });
    expect(
      await server.store.countActions({ action: "restart", service: "payment-service", environment: "prod" }),
    ).toBe(1);
  });

  it("refuses every bad input with a 4xx and leaves the thread as it was", async () => {
    const { client } = server;
    const threadId = await client.createThread();
    const pause = interruptOf(await client.run(threadId, SEED));
    const { callId, argsHash } = pause.calls[0];
    const before = await client.thread(threadId);
    const eventsBefore = await client.eventsAfter(threadId, 0);
    const runs = `/api/threads/${threadId}/runs`;
    const resume = `/api/threads/${threadId}/resume`;
    const unknown = "/api/threads/00000000-0000-4000-8000-000000000000";
    const cases: Array<[string, string, unknown, number, string]> = [
      ["POST", runs, "{not json", 400, "invalid_json"],
      ["POST", runs, {}, 400, "invalid_request"],
      ["POST", runs, { message: "" }, 400, "invalid_request"],
      ["POST", runs, { message: "   " }, 400, "invalid_request"],
      ["POST", runs, { message: 42 }, 400, "invalid_request"],
      ["POST", runs, { message: "x".repeat(8_001) }, 400, "invalid_request"],
      ["POST", runs, { message: "hi", extra: true }, 400, "invalid_request"],
      ["POST", runs, { message: "x".repeat(70_000) }, 413, "body_too_large"],
      ["POST", runs, { message: "hello" }, 409, "thread_paused"],
      ["POST", resume, "{", 400, "invalid_json"],
      ["POST", resume, { decisions: [] }, 400, "resume_rejected"],
      [
        "POST",
        resume,
        { decisions: [{ callId, action: "approve", args: { environment: "prod" } }] },
        400,
        "resume_rejected",
      ],
      [
        "POST",
        resume,
        { decisions: [{ callId: "call_nope", action: "approve", params: { environment: "prod" } }] },
        422,
        "resume_rejected",
      ],
      ["POST", resume, { decisions: [{ callId, action: "approve" }] }, 422, "resume_rejected"],
      [
        "POST",
        resume,
        { decisions: [{ callId, action: "approve", argsHash: `${argsHash}0`, params: { environment: "prod" } }] },
        422,
        "resume_rejected",
      ],
      [
        "POST",
        resume,
        { decisions: [{ callId, action: "approve", params: { environment: "moon" } }] },
        422,
        "resume_rejected",
      ],
      ["GET", `/api/threads/${threadId}/events?after=abc`, undefined, 400, "invalid_request"],
      ["GET", `/api/threads/${threadId}/events?after=-1`, undefined, 400, "invalid_request"],
      ["GET", unknown, undefined, 404, "thread_not_found"],
      ["GET", `${unknown}/events?after=0`, undefined, 404, "thread_not_found"],
      ["POST", `${unknown}/runs`, { message: "hi" }, 404, "thread_not_found"],
      ["POST", `${unknown}/resume`, { decisions: [{ callId, action: "reject" }] }, 404, "thread_not_found"],
      ["POST", `${unknown}/cancel`, undefined, 404, "thread_not_found"],
      ["GET", "/api/nothing-here", undefined, 404, "not_found"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await call(client, method, path, body);
      expect({ method, path, status: answer.status, code: answer.body.error?.code }).toEqual({
        method,
        path,
        status,
        code,
      });
      expect(answer.body.error?.message).toEqual(expect.any(String));
      expect(answer.text).not.toMatch(/\bat .+:\d+:\d+|stack/i);
    }
    expect(await client.thread(threadId)).toEqual(before);
    expect(await client.eventsAfter(threadId, 0)).toEqual(eventsBefore);

    const idle = await client.createThread();
    const notPaused = await call(client, "POST", `/api/threads/${idle}/resume`, {
      decisions: [{ callId, action: "reject" }],
    });
    expect({ status: notPaused.status, code: notPaused.body.error?.code }).toEqual({ status: 409, code: "not_paused" });
    expect((await client.thread(idle)).body).toEqual({ threadId: idle, status: "idle", messages: [] });
  });
});
