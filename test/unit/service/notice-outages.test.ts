import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPauseWebhook } from "../../../src/service/notices/pause-webhook.js";
import type { PauseEvent } from "../../../src/service/notices/pause-webhook-body.js";

const pause = (n: number): PauseEvent => ({
  type: "loop_interrupt",
  threadId: "thread-1",
  runId: "run-1",
  seq: n,
  interruptId: `int-${n}`,
  interruptType: "params_required",
  reason: "search_logs needs: environment",
  calls: [{ callId: `c${n}`, tool: "search_logs", args: { service: "payment-service" }, argsHash: "h", risk: "low" }],
});

describe("a notice target that fails, then recovers", () => {
  let server: Server;
  let up = false;
  let host: string;
  const delivered: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (part: Buffer) => (raw += part.toString("utf8")));
      req.on("end", () => {
        if (!up) return void res.writeHead(503).end();
        delivered.push((JSON.parse(raw) as { interruptId: string }).interruptId);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise((resolve) => server.close(resolve)));

  it("logs one warning with the host for the outage and one info line for the recovery, whatever the number of notices lost", async () => {
    const lines = { error: [] as string[], warn: [] as string[], info: [] as string[] };
    const webhook = createPauseWebhook({
      url: `http://${host}/services/T000/B000/secret-path?token=s3cr3t`,
      publicUrl: "http://127.0.0.1:8787/",
      events: { eventsAfter: () => Promise.resolve([]) },
      logger: {
        error: (message: string) => lines.error.push(message),
        warn: (message: string) => lines.warn.push(message),
        info: (message: string) => lines.info.push(message),
      },
      attempts: 1,
    });
    for (const n of [1, 2, 3, 4]) {
      webhook.notify(pause(n));
      await webhook.idle();
    }
    expect(lines.warn).toEqual([
      `pause webhook: could not announce pause int-1 of thread thread-1 (HTTP 503); pause notices to ${host} are failing; no further failure is logged until one is delivered again`,
    ]);
    expect(lines.info).toEqual([]);

    up = true;
    webhook.notify(pause(5));
    webhook.notify(pause(6));
    await webhook.idle();
    expect(delivered).toEqual(["int-5", "int-6"]);
    expect(lines.info).toHaveLength(1);
    expect(lines.info[0]).toMatch(
      new RegExp(`^pause notices to ${host.replace(/\./g, "\\.")} are delivered again, after 4 failed over \\d+ s$`),
    );

    // A second outage is a new one: logged once again.
    up = false;
    webhook.notify(pause(7));
    webhook.notify(pause(8));
    await webhook.idle();
    expect(lines.warn).toHaveLength(2);
    expect(lines.warn[1]).toContain(
      `could not announce pause int-7 of thread thread-1 (HTTP 503); pause notices to ${host}`,
    );
    expect(lines.error).toEqual([]);
    for (const line of [...lines.warn, ...lines.info]) {
      expect(line).not.toContain("secret-path");
      expect(line).not.toContain("s3cr3t");
    }
    await webhook.close(100);
  });
});
