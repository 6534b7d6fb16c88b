import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/contracts/events.js";
import { loadEnv } from "../../../src/config/env.js";
import { createPauseWebhook } from "../../../src/service/notices/pause-webhook.js";
import type { PauseEvent } from "../../../src/service/notices/pause-webhook-body.js";

const pause = (seq: number): PauseEvent => ({
  type: "loop_interrupt",
  threadId: "thread-1",
  runId: "run-1",
  seq,
  interruptId: "int-1",
  interruptType: "params_required",
  reason: "search_logs needs: environment",
  calls: [{ callId: "c1", tool: "search_logs", args: { service: "payment-service" }, argsHash: "h", risk: "low" }],
});

describe("the pause webhook", () => {
  let server: Server;
  let url: string;
  const received: unknown[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (part: Buffer) => (raw += part.toString("utf8")));
      req.on("end", () => {
        received.push(JSON.parse(raw));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => new Promise((resolve) => server.close(resolve)));

  it("announces a pause once, also when a second process records the same pause again", async () => {
    received.length = 0;
    const recorded: RunEvent[] = [pause(3)];
    const events = { eventsAfter: () => Promise.resolve(recorded) };
    const logged: string[] = [];
    const logger = { error: (message: string) => logged.push(message) };
    const first = createPauseWebhook({ url, publicUrl: "http://127.0.0.1:8787/", events, logger });
    first.notify(pause(3));
    first.notify(pause(3));
    await first.idle();
    // Another process recovers the run and records the same pause later in the thread.
    recorded.push(pause(7));
    const second = createPauseWebhook({ url, publicUrl: "http://127.0.0.1:8787/", events, logger });
    second.notify(pause(7));
    await second.idle();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ interruptId: "int-1", link: "http://127.0.0.1:8787/?thread=thread-1" });
    expect(logged).toEqual([]);
  });

  it("logs a notice it could not deliver and gives up after its attempts", async () => {
    const logged: string[] = [];
    const webhook = createPauseWebhook({
      url: "http://127.0.0.1:9/unreachable",
      publicUrl: "http://127.0.0.1:8787/",
      events: { eventsAfter: () => Promise.resolve([]) },
      logger: { error: (message: string) => logged.push(message) },
      attempts: 2,
      backoffMs: 10,
    });
    webhook.notify(pause(1));
    await webhook.idle();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^pause webhook: could not announce pause int-1 of thread thread-1 \(/);
  });

  it("abandons a notice to a receiver that never answers when it closes, and announces nothing after", async () => {
    const requests: string[] = [];
    // Takes each request and never answers it.
    const hanging = createServer((req) => requests.push(req.url ?? ""));
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const logged: string[] = [];
    const webhook = createPauseWebhook({
      url: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`,
      publicUrl: "http://127.0.0.1:8787/",
      events: { eventsAfter: () => Promise.resolve([]) },
      logger: { error: (message: string) => logged.push(message) },
      timeoutMs: 600_000,
    });
    webhook.notify(pause(1));
    await expect.poll(() => requests.length).toBe(1);
    // Without the abort, this would wait for the 10-minute attempt timeout and the test would time out.
    await webhook.close(20);
    expect(logged).toEqual([expect.stringMatching(/could not announce pause int-1 of thread thread-1 \(/)]);
    webhook.notify({ ...pause(2), interruptId: "int-2" });
    await webhook.idle();
    expect(requests).toHaveLength(1);
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it("refuses a webhook that is not an http(s) URL, and an unknown format, at start-up", () => {
    expect(() => loadEnv({ OPSPILOT_PAUSE_WEBHOOK: "ftp://hooks.example.com/x" })).toThrow(
      "Invalid environment: OPSPILOT_PAUSE_WEBHOOK must be an http(s) URL such as https://hooks.slack.com/services/....",
    );
    expect(() => loadEnv({ OPSPILOT_PAUSE_WEBHOOK_FORMAT: "teams" })).toThrow(
      "Invalid environment: OPSPILOT_PAUSE_WEBHOOK_FORMAT must be one of json, slack, feishu, dingtalk.",
    );
    expect(() => loadEnv({ OPSPILOT_PUBLIC_URL: "opspilot.example.com" })).toThrow(
      "Invalid environment: OPSPILOT_PUBLIC_URL must be an http(s) URL such as https://opspilot.example.com.",
    );
    expect(loadEnv({ OPSPILOT_PAUSE_WEBHOOK: "https://hooks.example.com/x" }).OPSPILOT_PAUSE_WEBHOOK_FORMAT).toBe(
      "json",
    );
  });
});
