import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../fixtures/http.js";
import {
  ALERT_TOKEN,
  firingFixture,
  startAlertServer,
  tempDirectory,
  type AlertServer,
} from "../fixtures/alert-server.js";

/** POSTs a webhook body to the intake with a token (Alertmanager's by default). */
function post(server: AlertServer, body: unknown, token: string | null = ALERT_TOKEN): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(`${server.url}/api/alerts/alertmanager`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A second alert joining the fixture's group. */
function withJoinedAlert(): Record<string, unknown> {
  const body = firingFixture();
  const [alert] = body.alerts as Array<Record<string, unknown>>;
  const joined = {
    ...alert,
    fingerprint: "2a7eb16a9b857c70",
    labels: { ...(alert!.labels as object), instance: "10.0.0.2:9090" },
  };
  return { ...body, alerts: [alert, joined] };
}

/** Rejects every call of the thread's pause, as the operator (not the thread's owner), when it waits. */
async function rejectPause(server: AlertServer, threadId: string): Promise<void> {
  const { body } = await server.operator.thread(threadId);
  const pause = body.interrupt as { calls: Array<{ callId: string; argsHash: string }> } | undefined;
  if (body.status !== "interrupted" || !pause) return;
  const decisions = pause.calls.map(({ callId, argsHash }) => ({ callId, argsHash, action: "reject" }));
  const events = await server.operator.resume(threadId, { decisions });
  expect(events.at(-1)?.type).toBe("run_finished");
}

async function runCount(server: AlertServer, threadId: string): Promise<number> {
  return (await server.app.storage.threadRecords(threadId)).runs.length;
}

async function incidents(client: ApiClient): Promise<Array<Record<string, unknown>>> {
  const response = await client.request("GET", "/api/incidents");
  expect(response.status).toBe(200);
  return ((await response.json()) as { incidents: Array<Record<string, unknown>> }).incidents;
}

describe("Alertmanager intake", () => {
  const directory = tempDirectory();
  let server: AlertServer;
  let incidentId: string;
  let threadId: string;

  beforeAll(async () => {
    server = await startAlertServer(directory.path);
  });
  afterAll(async () => {
    await server.stop();
    directory.remove();
  });

  it("answers 202 with the incident and investigates the alert on the incident's thread", async () => {
    const response = await post(server, firingFixture());
    expect(response.status).toBe(202);
    const body = (await response.json()) as { incidentId: string; outcome: string };
    expect(body.outcome).toBe("opened");
    incidentId = body.incidentId;
    await server.intake.worker.idle();

    const list = await incidents(server.operator);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      incidentId,
      source: "alertmanager",
      status: "firing",
      alertname: "AlwaysFiring",
      severity: "critical",
      startsAt: "2026-12-01T19:36:44.119Z",
      resolvedAt: null,
      labels: { service: "payment-service", severity: "critical" },
    });
    threadId = list[0]!.threadId as string;
    expect(["finished", "interrupted"]).toContain((list[0]!.investigation as { status: string }).status);

    const thread = await server.operator.thread(threadId);
    expect(thread.status).toBe(200);
    const messages = thread.body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]!.role).toBe("user");
    expect(messages[0]!.content).toContain("Rule expression: up == 1");
    expect(messages[0]!.content).toContain("summary: test alert");
    expect(await runCount(server, threadId)).toBe(1);
    const records = await server.app.storage.threadRecords(threadId);
    expect(records.runs[0]!.user_id).toBe("alertmanager");
  });

  it("starts nothing when the same group is delivered again with the same alerts", async () => {
    const response = await post(server, firingFixture());
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ incidentId, outcome: "unchanged" });
    await server.intake.worker.kick();
    await server.intake.worker.idle();
    expect(await runCount(server, threadId)).toBe(1);
  });

  it("creates one incident when the same new group arrives several times at once", async () => {
    const body = { ...firingFixture(), groupKey: '{}:{alertname="Concurrent"}' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(server, body)));
    const outcomes = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { outcome: string }).outcome),
    );
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202, 202]);
    expect(outcomes.filter((outcome) => outcome === "opened")).toHaveLength(1);
    await server.intake.worker.idle();
    expect(await incidents(server.operator)).toHaveLength(2);
  });

  it("runs a follow-up when an alert joins the group", async () => {
    const response = await post(server, withJoinedAlert());
    expect(await response.json()).toEqual({ incidentId, outcome: "follow_up" });
    // The first investigation waits for a person; the follow-up waits, stored, until the pause is answered.
    await server.intake.worker.kick();
    expect(await runCount(server, threadId)).toBe(1);
    await rejectPause(server, threadId);
    for (let tries = 0; tries < 100 && (await runCount(server, threadId)) < 2; tries++) {
      await server.intake.worker.idle();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await runCount(server, threadId)).toBe(2);
    const messages = (await server.operator.thread(threadId)).body.messages as Array<{ role: string; content: string }>;
    const asked = messages.filter((message) => message.role === "user");
    expect(asked).toHaveLength(2);
    expect(asked[1]!.content).toContain("2 firing alert(s)");
    expect(asked[1]!.content).toContain("instance=10.0.0.2:9090");
  });

  it("marks the incident resolved and says so in its thread, without a run", async () => {
    const response = await post(server, { ...withJoinedAlert(), status: "resolved" });
    expect(await response.json()).toEqual({ incidentId, outcome: "resolved" });
    await server.intake.worker.idle();
    await rejectPause(server, threadId);
    let incident: Record<string, unknown> = {};
    for (let tries = 0; tries < 100; tries++) {
      await server.intake.worker.idle();
      incident = (await (await server.operator.request("GET", `/api/incidents/${incidentId}`)).json()) as Record<
        string,
        unknown
      >;
      const last = ((await server.operator.thread(threadId)).body.messages as Array<{ content: string }>).at(-1);
      if (last?.content.includes("resolved")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(incident.status).toBe("resolved");
    expect(typeof incident.resolvedAt).toBe("string");
    const thread = await server.operator.thread(threadId);
    const last = (thread.body.messages as Array<{ role: string; content: string }>).at(-1)!;
    expect(last.role).toBe("assistant");
    expect(last.content).toContain("Alertmanager reports AlwaysFiring resolved");
    expect(thread.body.status).toBe("idle");
    expect(await runCount(server, threadId)).toBe(2);
    // Firing incidents are listed first.
    expect((await incidents(server.operator)).map((listed) => listed.status)).toEqual(["firing", "resolved"]);
  });

  it("opens the group's next incident, on a thread of its own, when the group fires again after it was resolved", async () => {
    const again = await post(server, { ...withJoinedAlert(), status: "resolved" });
    expect(await again.json()).toEqual({ incidentId, outcome: "unchanged" });
    const refired = await post(server, firingFixture());
    expect(refired.status).toBe(202);
    const { incidentId: nextId, outcome } = (await refired.json()) as { incidentId: string; outcome: string };
    expect(outcome).toBe("opened");
    expect(nextId).not.toBe(incidentId);
    const next = (await (await server.operator.request("GET", `/api/incidents/${nextId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(next).toMatchObject({ status: "firing", threadId: `incident-${nextId}`, resolvedAt: null });
    const group = (await incidents(server.operator)).filter((listed) =>
      [nextId, incidentId].includes(listed.incidentId as string),
    );
    expect(group).toMatchObject([
      { incidentId: nextId, status: "firing" },
      { incidentId, status: "resolved" },
    ]);
    const repeated = await post(server, firingFixture());
    expect(await repeated.json()).toEqual({ incidentId: nextId, outcome: "unchanged" });
    await server.intake.worker.idle();
    await rejectPause(server, `incident-${nextId}`);
  });

  it("refuses bad deliveries with a clear 4xx and stores nothing", async () => {
    const before = (await incidents(server.operator)).length;
    const refusals: Array<[Promise<Response>, number, string]> = [
      [post(server, firingFixture(), null), 401, "unauthorized"],
      [post(server, firingFixture(), "wrong-token-0123456789"), 401, "unauthorized"],
      [post(server, "{not json"), 400, "invalid_json"],
      [post(server, { ...firingFixture(), version: "3" }), 400, "invalid_payload"],
    ];
    for (const [answer, status, code] of refusals) {
      const response = await answer;
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    const version = await post(server, { ...firingFixture(), version: "3" });
    expect(((await version.json()) as { error: { message: string } }).error.message).toBe(
      'version: version must be "4", not "3"',
    );
    expect(await incidents(server.operator)).toHaveLength(before);
  });

  it("takes a group of 1,000 alerts and refuses 1,001 and a body over 1 MiB", async () => {
    const before = (await incidents(server.operator)).length;
    const [alert] = firingFixture().alerts as Array<Record<string, unknown>>;
    const many = (count: number) => ({
      ...firingFixture(),
      groupKey: `{}:{size="${count}"}`,
      alerts: Array.from({ length: count }, (_, index) => ({ ...alert, fingerprint: `fp${index}` })),
    });
    const taken = await post(server, many(1_000));
    expect(taken.status).toBe(202);
    const refused = await post(server, many(1_001));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("at most 1000 alerts");
    const huge = await post(server, { ...firingFixture(), padding: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    await server.intake.worker.idle();
    const listed = await incidents(server.operator);
    expect(listed).toHaveLength(before + 1);
  });

  it("lets viewers read no incidents and opens incident threads to other operators and admins", async () => {
    const viewer = new ApiClient(server.url, "viewer-token");
    const refused = await viewer.request("GET", "/api/incidents");
    expect(refused.status).toBe(403);
    expect((await viewer.thread(threadId)).status).toBe(404);
    const admin = new ApiClient(server.url, "admin-token");
    expect((await admin.thread(threadId)).status).toBe(200);
    expect((await admin.request("GET", `/api/incidents/${incidentId}`)).status).toBe(200);
    expect((await admin.request("GET", "/api/incidents/inc_nope")).status).toBe(404);
  });
});

describe("Alertmanager intake without a token", () => {
  it("answers 404 saying intake is off", async () => {
    const directory = tempDirectory();
    const server = await startAlertServer(directory.path, { OPSPILOT_ALERT_TOKEN: "" });
    try {
      const response = await post(server, firingFixture());
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("intake_off");
    } finally {
      await server.stop();
      directory.remove();
    }
  });
});
