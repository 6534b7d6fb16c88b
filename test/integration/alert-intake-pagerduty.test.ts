import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signPagerdutyBody } from "../../src/server/incidents/pagerduty-signature.js";
import {
  ALERT_TOKEN,
  firingFixture,
  startAlertServer,
  tempDirectory,
  type AlertServer,
} from "../fixtures/alert-server.js";
import { PAGERDUTY_SECRET, pagerdutyEvent, postPagerduty } from "../fixtures/pagerduty.js";

/** PagerDuty intake alone: Alertmanager's token unset. */
const PAGERDUTY_ONLY = { OPSPILOT_ALERT_TOKEN: "", OPSPILOT_PAGERDUTY_SECRET: PAGERDUTY_SECRET };

const HOUR = 3_600_000;

async function answer(response: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const errorCode = (body: Record<string, unknown>) => (body.error as { code: string }).code;

async function runCount(server: AlertServer, threadId: string): Promise<number> {
  return (await server.app.storage.threadRecords(threadId)).runs.length;
}

async function incidents(server: AlertServer): Promise<Array<Record<string, unknown>>> {
  const response = await server.operator.request("GET", "/api/incidents");
  expect(response.status).toBe(200);
  return ((await response.json()) as { incidents: Array<Record<string, unknown>> }).incidents;
}

/** Rejects the thread's pause, when one waits, so the messages queued behind it are delivered. */
async function rejectPause(server: AlertServer, threadId: string): Promise<void> {
  const { body } = await server.operator.thread(threadId);
  const pause = body.interrupt as { calls: Array<{ callId: string; argsHash: string }> } | undefined;
  if (body.status !== "interrupted" || !pause) return;
  const decisions = pause.calls.map(({ callId, argsHash }) => ({ callId, argsHash, action: "reject" }));
  await server.operator.resume(threadId, { decisions });
}

describe("PagerDuty intake", () => {
  const directory = tempDirectory();
  let server: AlertServer;
  const triggered = pagerdutyEvent("incident.triggered");
  const firstWebhookId = "b5f1c4d2-0d1e-4a8f-9d8b-3f6c2a1e7b90";
  let incidentId: string;
  let threadId: string;

  beforeAll(async () => {
    server = await startAlertServer(directory.path, PAGERDUTY_ONLY);
  });
  afterAll(async () => {
    await server.stop();
    directory.remove();
  });

  it("opens an incident for a signed incident.triggered and investigates it on its thread", async () => {
    const { status, body } = await answer(await postPagerduty(server.url, triggered, { webhookId: firstWebhookId }));
    expect(status).toBe(202);
    expect(body.outcome).toBe("opened");
    incidentId = body.incidentId as string;
    await server.intake.worker.idle();

    const list = await incidents(server);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      incidentId,
      source: "pagerduty",
      status: "firing",
      alertname: "Payment service error rate above 5%",
      severity: "critical",
      labels: { service: "payment-service", urgency: "high", priority: "P1", pagerduty_incident: "#42" },
      startsAt: "2026-12-01T19:36:44Z",
      resolvedAt: null,
    });
    expect(["finished", "interrupted"]).toContain((list[0]!.investigation as { status: string }).status);
    threadId = list[0]!.threadId as string;
    const messages = (await server.operator.thread(threadId)).body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]!.role).toBe("user");
    expect(messages[0]!.content).toMatch(/^PagerDuty incident #42 "Payment service error rate above 5%" was triggered/);
    expect(messages[0]!.content).toContain("Link: https://opspilot-demo.pagerduty.com/incidents/Q1PDINC42");
    expect(await runCount(server, threadId)).toBe(1);
  });

  it("answers duplicate and starts nothing for the same X-Webhook-Id, or the same signed event under a new one", async () => {
    for (const webhookId of [firstWebhookId, "a-fresh-id-on-a-replayed-body"]) {
      const { status, body } = await answer(await postPagerduty(server.url, triggered, { webhookId }));
      expect({ status, body }).toEqual({ status: 200, body: { incidentId, outcome: "duplicate" } });
    }
    await server.intake.worker.kick();
    await server.intake.worker.idle();
    expect(await runCount(server, threadId)).toBe(1);
  });

  it("answers 2xx and does nothing for the event types it does not act on", async () => {
    for (const type of ["incident.acknowledged", "incident.annotated", "pagey.ping"]) {
      const { status, body } = await answer(await postPagerduty(server.url, pagerdutyEvent(type)));
      expect({ status, body }).toEqual({ status: 202, body: { outcome: "ignored", eventType: type } });
    }
    expect(await incidents(server)).toHaveLength(1);
    expect(await runCount(server, threadId)).toBe(1);
  });

  it("refuses bad deliveries with a clear 4xx and stores nothing", async () => {
    const fresh = () => pagerdutyEvent("incident.triggered", { data: { ...triggered.event.data, id: "QOTHER" } });
    const text = JSON.stringify(fresh());
    const stale = pagerdutyEvent("incident.triggered", { occurred_at: new Date(Date.now() - 97 * HOUR).toISOString() });
    const future = pagerdutyEvent("incident.triggered", { occurred_at: new Date(Date.now() + 2 * HOUR).toISOString() });
    const refusals: Array<[Promise<Response>, number, string]> = [
      [postPagerduty(server.url, fresh(), { signature: null }), 401, "unauthorized"],
      [
        postPagerduty(server.url, text, { signature: signPagerdutyBody(text, "not-the-secret-0123456789") }),
        401,
        "unauthorized",
      ],
      [
        postPagerduty(server.url, text, { signature: signPagerdutyBody(`${text} `, PAGERDUTY_SECRET) }),
        401,
        "unauthorized",
      ],
      [postPagerduty(server.url, text, { signature: "sha256=abc" }), 401, "unauthorized"],
      [postPagerduty(server.url, fresh(), { webhookId: null }), 400, "missing_webhook_id"],
      [postPagerduty(server.url, fresh(), { webhookId: "x".repeat(201) }), 400, "invalid_webhook_id"],
      [postPagerduty(server.url, "{not json"), 400, "invalid_json"],
      [postPagerduty(server.url, { event: { id: "e", event_type: "incident.triggered" } }), 400, "invalid_payload"],
      [postPagerduty(server.url, pagerdutyEvent("incident.triggered", { data: { id: "QX" } })), 400, "invalid_payload"],
      [postPagerduty(server.url, stale), 422, "stale_delivery"],
      [postPagerduty(server.url, future), 422, "stale_delivery"],
      [
        postPagerduty(server.url, pagerdutyEvent("incident.triggered", { occurred_at: "last tuesday" })),
        422,
        "stale_delivery",
      ],
    ];
    for (const [sent, status, code] of refusals) {
      const { status: got, body } = await answer(await sent);
      expect([got, errorCode(body)]).toEqual([status, code]);
    }
    const missing = await answer(
      await postPagerduty(server.url, pagerdutyEvent("incident.triggered", { data: { id: "QX" } })),
    );
    expect((missing.body.error as { message: string }).message).toContain("event.data.title");
    expect(await incidents(server)).toHaveLength(1);
    expect(await server.app.storage.incidents.knowsDelivery("pagerduty", `event:${stale.event.id}`)).toBe(false);
  });

  it("resolves the incident on incident.resolved, signed with two secrets while one is rotated", async () => {
    const resolved = pagerdutyEvent("incident.resolved", {
      agent: { id: "PUSR1AB", summary: "On-call Engineer", type: "user_reference" },
      data: { ...triggered.event.data, status: "resolved" },
    });
    const text = JSON.stringify(resolved);
    const rotating = `${signPagerdutyBody(text, "the-previous-secret-0123456789")},${signPagerdutyBody(text, PAGERDUTY_SECRET)}`;
    const { status, body } = await answer(await postPagerduty(server.url, text, { signature: rotating }));
    expect({ status, body }).toEqual({ status: 202, body: { incidentId, outcome: "resolved" } });

    let last: { role: string; content: string } | undefined;
    for (let tries = 0; tries < 100; tries++) {
      await rejectPause(server, threadId);
      await server.intake.worker.idle();
      last = ((await server.operator.thread(threadId)).body.messages as Array<{ role: string; content: string }>).at(
        -1,
      );
      if (last?.content.startsWith("PagerDuty reports")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(last).toMatchObject({
      role: "assistant",
      content: `PagerDuty reports incident #42 "Payment service error rate above 5%" resolved by On-call Engineer at ${resolved.event.occurred_at} (service payment-service).`,
    });
    const incident = (await incidents(server))[0]!;
    expect(incident.status).toBe("resolved");
    expect(typeof incident.resolvedAt).toBe("string");
    expect(await runCount(server, threadId)).toBe(1);
  });

  it("answers 404 intake_off on the Alertmanager route, whose token is unset", async () => {
    const response = await fetch(`${server.url}/api/alerts/alertmanager`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALERT_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(firingFixture()),
    });
    expect(response.status).toBe(404);
    expect(errorCode((await response.json()) as Record<string, unknown>)).toBe("intake_off");
  });

  it("still knows the delivery after a restart, so a replayed trigger does not reopen the resolved incident", async () => {
    await server.stop();
    server = await startAlertServer(directory.path, PAGERDUTY_ONLY);
    for (const webhookId of [firstWebhookId, "after-the-restart"]) {
      const { status, body } = await answer(await postPagerduty(server.url, triggered, { webhookId }));
      expect({ status, body }).toEqual({ status: 200, body: { incidentId, outcome: "duplicate" } });
    }
    await server.intake.worker.kick();
    await server.intake.worker.idle();
    expect(await runCount(server, threadId)).toBe(1);
    expect((await incidents(server))[0]!.status).toBe("resolved");
  });
});

describe("PagerDuty intake without a secret", () => {
  it("answers 404 intake_off while Alertmanager intake keeps working", async () => {
    const directory = tempDirectory();
    const server = await startAlertServer(directory.path);
    try {
      const refused = await answer(await postPagerduty(server.url, pagerdutyEvent("incident.triggered")));
      expect([refused.status, errorCode(refused.body)]).toEqual([404, "intake_off"]);
      const taken = await fetch(`${server.url}/api/alerts/alertmanager`, {
        method: "POST",
        headers: { authorization: `Bearer ${ALERT_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(firingFixture()),
      });
      expect(taken.status).toBe(202);
      await server.intake.worker.idle();
    } finally {
      await server.stop();
      directory.remove();
    }
  });
});
