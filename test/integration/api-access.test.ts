import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { Runtime } from "../../src/service/runtime/runtime.js";
import { createServer } from "../../src/server/app.js";
import { startServer } from "../../src/server/start.js";
import { ApiClient, startTestServer, type TestServer } from "../fixtures/http.js";

const TOKENS = new Map([
  ["alice-token-0001", { id: "alice", role: "operator" }],
  ["bobby-token-0002", { id: "bob", role: "operator" }],
  ["viewer-token-0003", { id: "vera", role: "viewer" }],
  ["admin-token-0004", { id: "ada", role: "admin" }],
]);

describe("API access with OPSPILOT_API_TOKENS", () => {
  let server: TestServer;
  let alice: ApiClient;
  let bob: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ auth: { tokens: TOKENS } });
    alice = new ApiClient(server.url, "alice-token-0001");
    bob = new ApiClient(server.url, "bobby-token-0002");
  });
  afterAll(() => server.close());

  it("asks every /api request for a valid bearer token, but not the page or /healthz", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-9999", "Basic YWxpY2U6eA==", "Bearer"]) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const response = await server.client.request("POST", "/api/threads", undefined, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="opspilot"');
      expect(await response.json()).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
    }
    expect((await server.client.request("GET", "/healthz")).status).toBe(200);
    const page = await server.client.request("GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("shows the records summary over every thread to admins and viewers only", async () => {
    const denied = await alice.request("GET", "/api/records/summary");
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({
      error: { code: "forbidden", message: "Only an admin or a viewer may read the records summary." },
    });
    for (const token of ["admin-token-0004", "viewer-token-0003"]) {
      const allowed = await new ApiClient(server.url, token).request(
        "GET",
        "/api/records/summary?since=2026-01-01&until=2026-01-03T00:00:00Z",
      );
      expect(allowed.status).toBe(200);
      expect(await allowed.json()).toMatchObject({
        since: "2026-01-01T00:00:00.000Z",
        until: "2026-01-03T00:00:00.000Z",
        runs: 0,
        days: [{ day: "2026-01-01" }, { day: "2026-01-02" }],
      });
    }
    const admin = new ApiClient(server.url, "admin-token-0004");
    for (const query of ["since=yesterday", "since=2026-01-03&until=2026-01-01", "until=2026-13-45"]) {
      const refused = await admin.request("GET", `/api/records/summary?${query}`);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
  });

  it("hides a thread from every user but its creator", async () => {
    const threadId = await alice.createThread();
    await alice.run(threadId, "看看支付服务最近报错");
    const before = await alice.thread(threadId);
    expect(before.body.status).toBe("interrupted");
    const thread = `/api/threads/${threadId}`;
    const attempts: Array<[string, string, unknown]> = [
      ["GET", thread, undefined],
      ["GET", `${thread}/events?after=0`, undefined],
      ["POST", `${thread}/runs`, { message: "hello" }],
      ["POST", `${thread}/resume`, { decisions: [{ callId: "x", action: "reject" }] }],
      ["POST", `${thread}/cancel`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const response = await bob.request(method, path, body);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("thread_not_found");
    }
    expect(await alice.thread(threadId)).toEqual(before);
  });

  it("gives a viewer a permission_denied observation instead of running restart_service", async () => {
    const viewer = new ApiClient(server.url, "viewer-token-0003");
    const threadId = await viewer.createThread();
    const events = await viewer.run(threadId, "重启支付服务 prod 环境");
    const restart = events.find(
      (event): event is Extract<RunEvent, { type: "tool_result" }> =>
        event.type === "tool_result" && event.tool === "restart_service",
    );
    expect(restart).toMatchObject({ ok: false, errorCode: "permission_denied" });
    expect(events.some((event) => event.type === "loop_interrupt")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(await server.store.countActions({ action: "restart" })).toBe(0);
  });
});

describe("server safety", () => {
  it("refuses to bind beyond loopback without tokens", async () => {
    const runtime = {} as Runtime;
    await expect(startServer({ runtime, host: "0.0.0.0", port: 0 })).rejects.toMatchObject({ code: "config_invalid" });
    await expect(startServer({ runtime, host: "192.168.1.10", port: 0 })).rejects.toThrow(/OPSPILOT_API_TOKENS/);
  });

  it("answers an unexpected failure with a bare 500 and logs the details", async () => {
    const logged: unknown[] = [];
    const failing = {
      getThread: async () => Promise.reject(new Error("db password=hunter2 at Object.<anonymous> (/srv/x.js:1:1)")),
    } as unknown as Runtime;
    const app = createServer({ runtime: failing, logger: { error: (_message, error) => logged.push(error) } });
    const response = await app.request("/api/threads/some-thread");
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: "internal", message: "Internal error" } });
    expect(logged).toHaveLength(1);
  });
});
