import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { leaveUnfinished } from "../fixtures/unfinished-thread.js";
import {
  ALERT_TOKEN,
  firingFixture,
  startAlertServer,
  tempDirectory,
  type AlertServer,
} from "../fixtures/alert-server.js";

function post(server: AlertServer, body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/alerts/alertmanager`, {
    method: "POST",
    headers: { authorization: `Bearer ${ALERT_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("Alert intake across a restart", () => {
  it("keeps the incident and a follow-up queued behind a pause, and runs it once the pause is answered", async () => {
    const directory = tempDirectory();
    let server = await startAlertServer(directory.path);
    try {
      const { incidentId } = (await (await post(server, firingFixture())).json()) as { incidentId: string };
      await server.intake.worker.idle();
      const [alert] = firingFixture().alerts as Array<Record<string, unknown>>;
      const joined = { ...alert, fingerprint: "2a7eb16a9b857c70" };
      const followUp = await post(server, { ...firingFixture(), alerts: [alert, joined] });
      expect(((await followUp.json()) as { outcome: string }).outcome).toBe("follow_up");
      const { threadId } = (await server.app.storage.incidents.getIncident(incidentId))!;
      expect((await server.operator.thread(threadId)).body.status).toBe("interrupted");
      await server.stop();

      server = await startAlertServer(directory.path);
      expect(
        (await server.app.storage.incidents.pendingIncidentMessages()).map((message) => message.incidentId),
      ).toEqual([incidentId]);
      const incident = (await (await server.operator.request("GET", `/api/incidents/${incidentId}`)).json()) as {
        investigation: { status: string };
      };
      expect(incident.investigation.status).toBe("interrupted");
      const pause = (await server.operator.thread(threadId)).body.interrupt as {
        calls: Array<{ callId: string; argsHash: string }>;
      };
      const decisions = pause.calls.map(({ callId, argsHash }) => ({ callId, argsHash, action: "reject" }));
      await server.operator.resume(threadId, { decisions });
      for (let tries = 0; tries < 100 && (await server.app.storage.threadRecords(threadId)).runs.length < 2; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await server.intake.worker.idle();
      expect((await server.app.storage.threadRecords(threadId)).runs).toHaveLength(2);
      expect(await server.app.storage.incidents.pendingIncidentMessages()).toEqual([]);
    } finally {
      await server.stop();
      directory.remove();
    }
  });

  it("recovers an incident's run that a dead process left unfinished when the next one starts", async () => {
    const directory = tempDirectory();
    let server = await startAlertServer(directory.path);
    try {
      const { incidentId } = (await (await post(server, firingFixture())).json()) as { incidentId: string };
      await server.intake.worker.idle();
      const { threadId } = (await server.app.storage.incidents.getIncident(incidentId))!;
      await server.stop();
      // A second group's thread, left as a process leaves it when it dies mid-step (no intake running).
      const other = "incident-unfinished";
      const bare = createApp({
        env: loadEnv({}),
        dbPath: join(directory.path, "opspilot.sqlite"),
        model: new DemoChatModel(),
      });
      await bare.storage.incidents.openIncident({
        incidentId: "inc_unfinished",
        source: "alertmanager",
        groupKey: "{}:{dead}",
        threadId: other,
        alertname: "Dead",
        labels: {},
        startsAt: "2026-12-01T00:00:00Z",
        fingerprints: ["f"],
        createdAt: Date.now(),
        userId: "alertmanager",
        message: "delivered before the crash",
      });
      await bare.storage.incidents.finishIncidentMessage("inc_unfinished", 1);
      await leaveUnfinished(bare.graph, other);
      await bare.close();

      server = await startAlertServer(directory.path);
      await server.intake.worker.kick();
      await server.intake.worker.idle();
      const recovered = (await server.operator.thread(other)).body;
      expect(recovered.status).not.toBe("running");
      expect(recovered.unfinished).toBeUndefined();
      const tool = (recovered.messages as Array<{ role: string; callId?: string }>).find((m) => m.role === "tool");
      expect(tool?.callId).toBe("c1");
      expect((await server.operator.thread(threadId)).body.status).toBe("interrupted");
    } finally {
      await server.stop();
      directory.remove();
    }
  });
});
