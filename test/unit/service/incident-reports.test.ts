import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/contracts/events.js";
import { loadEnv } from "../../../src/config/env.js";
import {
  createIncidentReports,
  type IncidentAnswer,
  type IncidentReportsOptions,
} from "../../../src/service/incidents/reports.js";
import { incidentIdOfThread } from "../../../src/service/incidents/incidents.js";
import type { IncidentRow } from "../../../src/storage/types.js";

const INCIDENT_ID = "inc_0123456789abcdef01234567";
const THREAD = `incident-${INCIDENT_ID}`;

const incident: IncidentRow = {
  incidentId: INCIDENT_ID,
  source: "alertmanager",
  groupKey: '{}:{alertname="AlwaysFiring"}',
  threadId: THREAD,
  status: "firing",
  alertname: "AlwaysFiring",
  severity: "critical",
  labels: {},
  startsAt: "2026-12-01T19:36:44.119Z",
  fingerprints: ["1a"],
  createdAt: 1,
};

/** A run on `threadId` that paused, was answered and then answered itself, as its recorded events. */
function pausedThenAnswered(threadId: string, answer = "Roll back v2.3.1."): RunEvent[] {
  const base = { threadId, runId: "run-1" };
  return [
    { ...base, seq: 1, type: "run_started" },
    { ...base, seq: 2, type: "assistant_message", messageId: "m1", content: "Checking the logs first." },
    {
      ...base,
      seq: 3,
      type: "loop_interrupt",
      interruptId: "int-1",
      interruptType: "params_required",
      reason: "search_logs needs: environment",
      calls: [{ callId: "c1", tool: "search_logs", args: { token: "[REDACTED]" }, argsHash: "h", risk: "low" }],
    },
    { ...base, seq: 4, type: "run_finished", stopReason: "interrupted", steps: 1, durationMs: 5 },
    { ...base, seq: 5, type: "run_started", resumed: true },
    { ...base, seq: 6, type: "assistant_message", messageId: "m2", content: answer },
    { ...base, seq: 7, type: "run_finished", stopReason: "final_answer", steps: 2, durationMs: 9, paused: true },
  ];
}

/** Storage holding the incident (unless told otherwise) and the given recorded events. */
function storageOf(recorded: RunEvent[], rows: IncidentRow[] = [incident]): IncidentReportsOptions["storage"] {
  return {
    incidents: { getIncident: (id) => Promise.resolve(rows.find((row) => row.incidentId === id)) },
    eventsAfter: (threadId) => Promise.resolve(recorded.filter((event) => event.threadId === threadId)),
  };
}

describe("incident reports", () => {
  let server: Server;
  let url: string;
  let status = 204;
  let attempts = 0;
  const received: unknown[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (part: Buffer) => (raw += part.toString("utf8")));
      req.on("end", () => {
        attempts += 1;
        received.push(JSON.parse(raw));
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    received.length = 0;
    attempts = 0;
    status = 204;
  });

  const webhook = () => ({ url, publicUrl: "https://ops.example.com/" });

  it("announces a pause and a run's end once each, also when another process records them again", async () => {
    const recorded = pausedThenAnswered(THREAD);
    const answers: IncidentAnswer[] = [];
    const logged: string[] = [];
    const options = {
      storage: storageOf(recorded),
      logger: { error: (message: string) => logged.push(message) },
      webhook: webhook(),
      onAnswer: (report: IncidentAnswer) => void answers.push(report),
    };
    const first = createIncidentReports(options);
    for (const event of [...recorded, ...recorded]) first.observe(event);
    await first.idle();
    // A recovered run records its pause and its end again, later in the thread, from another process.
    const again = [
      { ...recorded[2]!, seq: 8 },
      { ...recorded[6]!, seq: 9 },
    ];
    recorded.push(...again);
    const second = createIncidentReports(options);
    for (const event of again) second.observe(event);
    await second.idle();

    // Both notices go out at once: their order of arrival is not fixed.
    const [answer, pause] = (received as Array<{ event: string }>).sort((a, b) => a.event.localeCompare(b.event));
    expect(received).toHaveLength(2);
    expect(pause).toMatchObject({ event: "paused", runId: "run-1", stopReason: "interrupted" });
    expect(answer).toMatchObject({ event: "answered", runId: "run-1", stopReason: "final_answer" });
    expect(pause).toMatchObject({
      incidentId: INCIDENT_ID,
      link: `https://ops.example.com/?thread=${THREAD}`,
      summary: 'search_logs needs: environment\n• search_logs {"token":"[REDACTED]"}',
    });
    expect(answer).toMatchObject({ summary: "Roll back v2.3.1.", alertname: "AlwaysFiring" });
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({
      incident,
      threadId: THREAD,
      runId: "run-1",
      stopReason: "final_answer",
      answer: "Roll back v2.3.1.",
    });
    expect(typeof answers[0]!.at).toBe("number");
    expect(logged).toEqual([]);
  });

  it("reports nothing for a thread that is not an incident's, even one named like it", async () => {
    const answers: IncidentAnswer[] = [];
    const impostor = `incident-inc_ffffffffffffffffffffffff`;
    const recorded = [...pausedThenAnswered("thread-1"), ...pausedThenAnswered(impostor)];
    // The row of that id holds another thread: a thread's name alone proves nothing.
    const rows = [incident, { ...incident, incidentId: "inc_ffffffffffffffffffffffff" }];
    const reports = createIncidentReports({
      storage: storageOf(recorded, rows),
      logger: { error: () => undefined },
      webhook: webhook(),
      onAnswer: (report) => void answers.push(report),
    });
    for (const event of recorded) reports.observe(event);
    await reports.idle();
    expect(received).toEqual([]);
    expect(answers).toEqual([]);
    expect(incidentIdOfThread("thread-1")).toBeUndefined();
    expect(incidentIdOfThread("incident-")).toBeUndefined();
    expect(incidentIdOfThread(THREAD)).toBe(INCIDENT_ID);
  });

  it("hands the whole answer to the hook without a webhook, and logs a hook that throws", async () => {
    const long = "Root cause: ".padEnd(3_000, "x");
    const recorded = pausedThenAnswered(THREAD, long);
    const answers: string[] = [];
    const logged: Array<[string, unknown]> = [];
    const reports = createIncidentReports({
      storage: storageOf(recorded),
      logger: { error: (message, error) => logged.push([message, error]) },
      onAnswer: (report) => {
        answers.push(report.answer);
        throw new Error("database is gone");
      },
    });
    for (const event of recorded) reports.observe(event);
    await reports.idle();
    expect(answers).toEqual([long]);
    expect(received).toEqual([]);
    expect(logged).toEqual([
      [`the incident answer hook failed for run run-1 of incident ${INCIDENT_ID}`, new Error("database is gone")],
    ]);
  });

  it("retries a receiver that answers 500, then logs the notice it gave up", async () => {
    status = 500;
    const recorded = pausedThenAnswered(THREAD);
    const logged: string[] = [];
    const reports = createIncidentReports({
      storage: storageOf(recorded),
      logger: { error: (message: string) => logged.push(message) },
      webhook: { ...webhook(), format: "slack", attempts: 3, backoffMs: 5 },
    });
    reports.observe(recorded[6]!);
    await reports.idle();
    expect(attempts).toBe(3);
    expect((received[0] as { text: string }).text).toMatch(
      /^✅ AlwaysFiring \[critical, firing\]: opspilot answered\n/,
    );
    // One line for the outage of the target (its host only), not one per notice.
    expect(logged).toEqual([
      `incident webhook: could not announce the answer of run run-1 of incident ${INCIDENT_ID} (HTTP 500); ` +
        `incident notices to ${new URL(url).host} are failing; no further failure is logged until one is delivered again`,
    ]);
  });

  it("stops waiting for a hook that hangs when it closes, and reports nothing after", async () => {
    const recorded = pausedThenAnswered(THREAD);
    const logged: string[] = [];
    let called = 0;
    const reports = createIncidentReports({
      storage: storageOf(recorded),
      logger: { error: (message: string) => logged.push(message) },
      onAnswer: () => {
        called += 1;
        return new Promise<void>(() => undefined);
      },
    });
    reports.observe(recorded[6]!);
    await expect.poll(() => called).toBe(1);
    await reports.close(20);
    expect(logged).toEqual([
      `the incident answer hook did not finish for run run-1 of incident ${INCIDENT_ID} before the process closed`,
    ]);
    reports.observe({ ...recorded[6]!, runId: "run-2", seq: 20 });
    await reports.idle();
    expect(called).toBe(1);
  });

  it("refuses an incident webhook that is not an http(s) URL, and an unknown format, at start-up", () => {
    expect(() => loadEnv({ OPSPILOT_INCIDENT_WEBHOOK: "file:///tmp/x" })).toThrow(
      "Invalid environment: OPSPILOT_INCIDENT_WEBHOOK must be an http(s) URL such as https://hooks.slack.com/services/....",
    );
    expect(() => loadEnv({ OPSPILOT_INCIDENT_WEBHOOK_FORMAT: "teams" })).toThrow(
      "Invalid environment: OPSPILOT_INCIDENT_WEBHOOK_FORMAT must be one of json, slack, feishu, dingtalk.",
    );
    const env = loadEnv({ OPSPILOT_INCIDENT_WEBHOOK: "https://hooks.example.com/x" });
    expect(env.OPSPILOT_INCIDENT_WEBHOOK_FORMAT).toBe("json");
  });
});
