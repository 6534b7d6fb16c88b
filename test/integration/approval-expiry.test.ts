import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp, openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { ConfigFileSchema } from "../../src/config/schema.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { startServer } from "../../src/server/start.js";
import { ApiClient, startTestServer, waitUntilSettled } from "../fixtures/http.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { startWebhookReceiver } from "../fixtures/webhook-receiver.js";

const RESTART = "restart payment service in staging";
const PUBLIC_URL = "https://ops.example.com/";
const CONFIG = ConfigFileSchema.parse({ tools: { restart_service: { approvals: { expiresAfter: "2s" } } } });
const EXPIRED = "No one approved restart_service within 2 seconds.";
const ANSWER = `Nothing was done: the approval to restart payment-service expired. ${EXPIRED}`;
const local = { id: "local", role: "admin" };

type Pause = Extract<RunEvent, { type: "loop_interrupt" }>;
const pauseOf = (events: RunEvent[]) => events.find((event): event is Pause => event.type === "loop_interrupt")!;

/** Until the app's thread is idle again (the expiry's run ended), polled through the runtime. */
async function untilIdle(app: App, threadId: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await app.runtime.getThread(threadId, local)).status !== "idle") {
    if (Date.now() > deadline) throw new Error(`thread ${threadId} did not settle`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What the thread recorded after its pause: the expiry's events, decisions and the restarts the estate saw. */
async function afterPause(app: App, threadId: string, pause: Pause) {
  const events = await app.storage.eventsAfter(threadId, pause.seq);
  const records = await app.storage.threadRecords(threadId);
  return {
    types: events.map((event) => event.type),
    expired: events.filter((event) => event.type === "tool_result" && event.errorCode === "approval_expired"),
    answer: events.filter((event) => event.type === "assistant_message").map((event) => event.content),
    decisions: records.decisions.map((row) => ({ action: row.action, user: row.user_id, role: row.role })),
    restarts: await app.ops.countActions({ action: "restart" }),
  };
}

/** The events after a pause that an expiry leaves: the paused run's end, then one continued run that answers. */
const EXPIRY_EVENTS = ["run_finished", "run_started", "tool_result", "assistant_message", "run_finished"];

describe("approvals that expire", { timeout: 60_000 }, () => {
  const cleanup: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of cleanup.splice(0).reverse()) await item.close();
  });

  it("answers an unapproved restart approval_expired with no client connected: nothing runs, the thread answers, a notice says so", async () => {
    const receiver = await startWebhookReceiver([200]);
    cleanup.push(receiver);
    const server = await startTestServer({
      config: CONFIG,
      env: { OPSPILOT_PAUSE_WEBHOOK: receiver.url, OPSPILOT_PUBLIC_URL: PUBLIC_URL },
    });
    cleanup.push(server);
    const threadId = await server.client.createThread();
    const started = Date.now();
    const pause = pauseOf(await server.client.run(threadId, RESTART));
    const pausedBy = Date.now();
    expect(pause).toMatchObject({ interruptType: "confirm_risky", calls: [{ tool: "restart_service" }] });
    // Two seconds after the run paused, which happened between the request and its answer.
    const expiresAt = Date.parse(pause.expiresAt!);
    expect(expiresAt).toBeGreaterThanOrEqual(started + 2_000);
    expect(expiresAt).toBeLessThanOrEqual(pausedBy + 2_000);
    const { body: paused } = await server.client.thread(threadId);
    expect(paused).toMatchObject({ status: "interrupted", interrupt: { expiresAt: pause.expiresAt } });

    // No client is connected now: the server's sweep closes the pause on its own.
    const notice = await receiver.receivedType("approval_expired");
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(notice).toEqual({
      type: "approval_expired",
      link: `${PUBLIC_URL}?thread=${threadId}`,
      threadId,
      runId: pause.runId,
      interruptId: pause.interruptId,
      expiresAt: pause.expiresAt,
      tools: ["restart_service"],
      messages: [EXPIRED],
    });
    const thread = await waitUntilSettled(server.client, threadId);
    expect(thread.status).toBe("idle");
    const messages = thread.messages as Array<Record<string, unknown>>;
    expect(messages.at(-2)).toMatchObject({
      role: "tool",
      tool: "restart_service",
      ok: false,
      errorCode: "approval_expired",
      decision: { action: "expire", by: "opspilot:system", message: EXPIRED },
    });
    expect(messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(messages.at(-1)!.content).toContain(ANSWER);
    expect(await server.store.countActions({ action: "restart" })).toBe(0);

    // A late approval is the stale-pause refusal, and changes nothing.
    const late = await server.client.request("POST", `/api/threads/${threadId}/resume`, {
      decisions: [{ callId: pause.calls[0]!.callId, action: "approve", argsHash: pause.calls[0]!.argsHash }],
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe("not_paused");
    expect(await server.store.countActions({ action: "restart" })).toBe(0);
    expect(receiver.bodies.map((body) => body.type)).toEqual(["pause", "approval_expired"]);
  });

  it("expires once a pause that waited while the server was down, on the first sweep after the restart", async () => {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-expiry-"));
    cleanup.push({ close: async () => rmSync(directory, { recursive: true, force: true }) });
    const open = () =>
      createApp({
        env: loadEnv({}),
        dbPath: join(directory, "opspilot.sqlite"),
        model: new DemoChatModel(),
        config: CONFIG,
      });

    const before = open();
    const threadId = await before.runtime.createThread(local);
    const pause = pauseOf(
      await collectEvents(await before.runtime.startRun({ threadId, message: RESTART, user: local })),
    );
    await before.close();
    // Down past the deadline: nothing could expire it meanwhile.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(pause.expiresAt!) - Date.now() + 50)));

    const after = open();
    cleanup.push(after);
    const server = await startServer({ runtime: after.runtime, host: "127.0.0.1", port: 0, tools: after.registry });
    cleanup.push(server);
    after.start();
    await untilIdle(after, threadId);
    expect(await afterPause(after, threadId, pause)).toEqual({
      types: EXPIRY_EVENTS,
      expired: [expect.objectContaining({ tool: "restart_service", errorCode: "approval_expired" })],
      answer: [expect.stringContaining(ANSWER)],
      decisions: [{ action: "expire", user: "opspilot:system", role: "system" }],
      restarts: 0,
    });
    expect(await new ApiClient(server.url).thread(threadId)).toMatchObject({ status: 200, body: { status: "idle" } });
  });

  describe.skipIf(skipPostgres)("on PostgreSQL", () => {
    let cluster: PostgresCluster;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it("is expired by exactly one of two serving processes: one set of decisions, one run", async () => {
      const directory = mkdtempSync(join(tmpdir(), "opspilot-expiry-pg-"));
      cleanup.push({ close: async () => rmSync(directory, { recursive: true, force: true }) });
      const open = async (name: string) => {
        const env = loadEnv({ DATABASE_URL: cluster.url, OPSPILOT_DB: join(directory, `${name}.sqlite`) });
        const app = await openApp({
          env,
          model: new DemoChatModel(),
          config: CONFIG,
          sweepMs: { "approval-expiry": 20 },
        });
        cleanup.push(app);
        return app;
      };
      const [a, b] = [await open("a"), await open("b")];
      const threadId = await a.runtime.createThread(local);
      const pause = pauseOf(await collectEvents(await a.runtime.startRun({ threadId, message: RESTART, user: local })));
      // Both sweep often, so both see the deadline come due together.
      a.start();
      b.start();
      await untilIdle(a, threadId);
      // The deadline went with the expiry: no sweep of either process can act on it again.
      expect(await a.storage.pauseDeadlines.dueDeadlines(Date.now(), 10)).toEqual([]);
      expect(await afterPause(b, threadId, pause)).toEqual({
        types: EXPIRY_EVENTS,
        expired: [expect.objectContaining({ tool: "restart_service", errorCode: "approval_expired" })],
        answer: [expect.stringContaining(ANSWER)],
        decisions: [{ action: "expire", user: "opspilot:system", role: "system" }],
        restarts: 0,
      });
    });
  });
});
