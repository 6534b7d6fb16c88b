import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { ApiClient, startTestServer, type TestServer } from "../fixtures/http.js";

/** One user id with two tokens of different roles, as `OPSPILOT_API_TOKENS=tA=root:admin,tB=root:operator`. */
const TOKENS = new Map([
  ["root-admin-token-A", { id: "root", role: "admin" }],
  ["root-operator-token-B", { id: "root", role: "operator" }],
]);

/** The pause a run stopped on, without the event's own fields. */
function pauseOf(events: RunEvent[]): PauseValue {
  const event = events.find((item) => item.type === "loop_interrupt");
  if (!event) throw new Error("the run did not pause");
  const { type: _type, threadId: _threadId, runId: _runId, seq: _seq, ...pause } = event;
  return pause;
}

describe("answering a pause over HTTP with two tokens of one user", () => {
  let server: TestServer;
  let admin: ApiClient;
  let operator: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ auth: { tokens: TOKENS } });
    admin = new ApiClient(server.url, "root-admin-token-A");
    operator = new ApiClient(server.url, "root-operator-token-B");
  });
  afterAll(() => server.close());

  it("answers 403 permission_denied to the operator's approval of an admin-only rollback, and runs it for the admin", async () => {
    const threadId = await admin.createThread();
    const pause = pauseOf(await admin.run(threadId, "roll back payment-service in prod"));
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ tool: "rollback_deploy", args: { service: "payment-service", environment: "prod" }, risk: "high" }],
    });
    const [call] = pause.calls;
    const approve = { decisions: [{ callId: call!.callId, action: "approve", argsHash: call!.argsHash }] };
    const before = await admin.thread(threadId);

    const refused = await operator.request("POST", `/api/threads/${threadId}/resume`, approve);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: {
        code: "permission_denied",
        message: `Your role (operator) is not allowed to use rollback_deploy, so you cannot approve or edit call ${call!.callId}; it keeps waiting for a user who may.`,
      },
    });
    expect(await admin.thread(threadId)).toEqual(before);
    expect(before.body).toMatchObject({ status: "interrupted", interrupt: pause });
    expect(await server.store.countActions({ action: "rollback" })).toBe(0);

    const events = await admin.resume(threadId, approve);
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ tool: "rollback_deploy", ok: true });
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(
      await server.store.countActions({ action: "rollback", service: "payment-service", environment: "prod" }),
    ).toBe(1);
    const records = await admin.request("GET", `/api/threads/${threadId}/records`);
    const { decisions } = (await records.json()) as { decisions: Array<Record<string, unknown>> };
    expect(decisions.map((row) => [row.call_id, row.action, row.user_id, row.role])).toEqual([
      [call!.callId, "approve", "root", "admin"],
    ]);
  });

  it("answers 422 to params that change a field the pause did not ask for, and restarts what was shown once approved", async () => {
    const threadId = await admin.createThread();
    const pause = pauseOf(await admin.run(threadId, "restart order-service"));
    const [call] = pause.calls;
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ tool: "restart_service", args: { service: "order-service" }, risk: "high" }],
    });
    expect(call!.missing?.map((field) => field.name)).toEqual(["environment"]);

    const decision = { callId: call!.callId, action: "approve", argsHash: call!.argsHash };
    const refused = await admin.request("POST", `/api/threads/${threadId}/resume`, {
      decisions: [{ ...decision, params: { environment: "prod", service: "payment-service" } }],
    });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: {
        code: "resume_rejected",
        message: `Call ${call!.callId} (restart_service): params may only fill the missing fields (environment); "service" was not asked for. To change other args, use action "edit".`,
      },
    });
    expect(await server.store.countActions({ action: "restart" })).toBe(0);
    expect((await admin.thread(threadId)).body).toMatchObject({ status: "interrupted", interrupt: pause });

    await admin.resume(threadId, { decisions: [{ ...decision, params: { environment: "prod" } }] });
    expect(await server.store.countActions({ action: "restart" })).toBe(1);
    expect(await server.store.countActions({ action: "restart", service: "order-service", environment: "prod" })).toBe(
      1,
    );
  });
});

describe("answering a pause over HTTP in LangChain's HITLResponse shape", () => {
  let server: TestServer;
  let admin: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ auth: { tokens: TOKENS } });
    admin = new ApiClient(server.url, "root-admin-token-A");
  });
  afterAll(() => server.close());

  it("refuses a malformed one in its own terms, then runs the approved call with the args shown", async () => {
    const threadId = await admin.createThread();
    const pause = pauseOf(await admin.run(threadId, "roll back payment-service in prod"));
    expect(pause.reviewConfigs).toEqual([
      { actionName: "rollback_deploy", allowedDecisions: ["approve", "edit", "reject"] },
    ]);
    const malformed = await admin.request("POST", `/api/threads/${threadId}/resume`, {
      decisions: [{ type: "approve", args: { environment: "staging" } }],
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: "resume_rejected" } });
    const twoForOne = await admin.request("POST", `/api/threads/${threadId}/resume`, {
      decisions: [{ type: "approve" }, { type: "reject" }],
    });
    expect(twoForOne.status).toBe(422);
    expect(await twoForOne.json()).toMatchObject({ error: { message: expect.stringContaining("waits on 1 call(s)") } });
    expect(await server.store.countActions({ action: "rollback" })).toBe(0);

    const events = await admin.resume(threadId, { decisions: [{ type: "approve" }] });
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(
      await server.store.countActions({ action: "rollback", service: "payment-service", environment: "prod" }),
    ).toBe(1);
  });
});
