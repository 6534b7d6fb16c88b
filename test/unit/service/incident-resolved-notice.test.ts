import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/contracts/events.js";
import { incidentText, incidentWebhookBody, resolvedNotice } from "../../../src/service/incidents/notice-body.js";
import { createIncidentReports } from "../../../src/service/incidents/reports.js";
import type { IncidentSilence } from "../../../src/storage/incidents/incident-store.js";
import type { IncidentRow } from "../../../src/storage/types.js";

const INCIDENT_ID = "inc_0123456789abcdef01234567";
const THREAD = `incident-${INCIDENT_ID}`;
const RESOLVED_AT = Date.UTC(2026, 11, 1, 21, 5);

const firing: IncidentRow = {
  incidentId: INCIDENT_ID,
  source: "alertmanager",
  groupKey: '{}:{alertname="PaymentHighErrorRate"}',
  threadId: THREAD,
  status: "firing",
  alertname: "PaymentHighErrorRate",
  severity: "critical",
  labels: { service: "payment-service" },
  startsAt: "2026-12-01T19:36:44.119Z",
  fingerprints: ["1a"],
  createdAt: 1,
};
const resolvedWhileSilenced: IncidentRow = {
  ...firing,
  status: "resolved",
  fingerprints: [],
  silencedAt: RESOLVED_AT - 60_000,
  silenceIds: ["0f3c-11"],
  resolvedAt: RESOLVED_AT,
  resolution: "resolved_while_silenced",
};

describe("the resolved notice", () => {
  it("carries the incident's id, how and when it ended, and the fields of the other incident notices as JSON", () => {
    expect(incidentWebhookBody(resolvedNotice(resolvedWhileSilenced, "https://ops.example.com/"), "json")).toEqual({
      type: "incident",
      event: "resolved",
      incidentId: INCIDENT_ID,
      source: "alertmanager",
      alertname: "PaymentHighErrorRate",
      severity: "critical",
      status: "resolved",
      threadId: THREAD,
      runId: null,
      link: `https://ops.example.com/?thread=${THREAD}`,
      stopReason: null,
      resolution: "resolved_while_silenced",
      resolvedAt: "2026-12-01T21:05:00.000Z",
      summary:
        "PaymentHighErrorRate resolved while silenced (silence 0f3c-11): Alertmanager no longer reports its alerts.",
      postmortem: `https://ops.example.com/api/incidents/${INCIDENT_ID}/postmortem`,
    });
  });

  it("says the source resolved an incident resolved before the resolution was kept, in a chat's text too", () => {
    const old = { ...firing, status: "resolved" as const, resolvedAt: RESOLVED_AT };
    const notice = resolvedNotice(old, "https://ops.example.com/");
    expect(notice).toMatchObject({
      resolution: "alert_resolved",
      summary: "PaymentHighErrorRate resolved: alertmanager reports every alert of the group ended.",
    });
    expect(incidentText(resolvedNotice(resolvedWhileSilenced, "https://ops.example.com/"))).toBe(
      [
        "🟢 PaymentHighErrorRate [critical, resolved]: resolved while silenced",
        "PaymentHighErrorRate resolved while silenced (silence 0f3c-11): Alertmanager no longer reports its alerts.",
        `Thread ${THREAD}: https://ops.example.com/?thread=${THREAD}`,
        `Postmortem draft: https://ops.example.com/api/incidents/${INCIDENT_ID}/postmortem`,
      ].join("\n"),
    );
    expect(() => resolvedNotice(firing, "https://ops.example.com/")).toThrow(TypeError);
  });
});

describe("incident reports of resolutions and silences", () => {
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
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => new Promise((resolve) => server.close(resolve)));

  it("posts the resolved notice once told, and records the silence an incident's thread made", async () => {
    const silences: Array<[string, IncidentSilence | null]> = [];
    const logged: string[] = [];
    const reports = createIncidentReports({
      storage: {
        incidents: {
          getIncident: (id) => Promise.resolve(id === INCIDENT_ID ? firing : undefined),
          setIncidentSilence: (id, silence) => {
            silences.push([id, silence]);
            return Promise.resolve(true);
          },
        },
        eventsAfter: () => Promise.resolve([]),
      },
      logger: { error: (message: string) => logged.push(message) },
      webhook: { url, publicUrl: "https://ops.example.com/" },
    });
    const result = (threadId: string, tool: string, ok: boolean, summary: string): RunEvent => ({
      type: "tool_result",
      threadId,
      runId: "run-2",
      seq: 7,
      callId: "call_s1",
      tool,
      ok,
      summary,
      durationMs: 12,
    });
    reports.observe(result(THREAD, "alertmanager_create_silence", true, '{"silenceId":"0f3c-11","state":"active"'));
    // A failed silence, another tool, another thread: nothing is recorded.
    reports.observe(result(THREAD, "alertmanager_create_silence", false, "invalid_args: bad matcher"));
    reports.observe(result(THREAD, "alertmanager_silences", true, '{"silenceId":"other"}'));
    reports.observe(result("thread-1", "alertmanager_create_silence", true, '{"silenceId":"x"}'));
    reports.resolved(resolvedWhileSilenced);
    await reports.idle();

    expect(silences).toEqual([[INCIDENT_ID, { at: expect.any(Number) as number, silenceIds: ["0f3c-11"] }]]);
    expect(received).toEqual([
      expect.objectContaining({ event: "resolved", incidentId: INCIDENT_ID, resolution: "resolved_while_silenced" }),
    ]);
    expect(logged).toEqual([]);
    await reports.close();
  });
});
