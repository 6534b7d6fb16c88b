import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IncidentTimeline } from "../../src/service/postmortem/timeline-entry.js";
import { tempDirectory } from "../fixtures/alert-server.js";
import {
  incidentScript,
  QUERY_CALL,
  SILENCE_CALL,
  startTimelineServer,
  walkIncident,
  type TimelineServer,
} from "../fixtures/incident-timeline.js";
import { ApiClient } from "../fixtures/http.js";
import { answerMessage } from "../fixtures/scripted-model.js";

/** The narrative the scripted model writes: one number (73519) no observation or record holds. */
const NARRATIVE =
  "PaymentErrorsHigh fired for payment-service, which reported 9 errors per second [call_query_errors].\n" +
  "The errors cost 73519 failed payments before the silence.";

describe("an incident's timeline and postmortem draft", () => {
  const directory = tempDirectory();
  let server: TimelineServer;
  let incidentId: string;
  let threadId: string;
  beforeAll(async () => {
    server = await startTimelineServer(directory.path, incidentScript([answerMessage(NARRATIVE)]));
    ({ incidentId, threadId } = await walkIncident(server));
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    directory.remove();
  });

  it("holds the alert firing, the investigation's steps, the approved silence with its approver, and the resolution", async () => {
    const response = await server.operator.request("GET", `/api/incidents/${incidentId}/timeline`);
    expect(response.status).toBe(200);
    const timeline = (await response.json()) as IncidentTimeline;
    expect(timeline).toMatchObject({
      incidentId,
      threadId,
      source: "alertmanager",
      alertname: "PaymentErrorsHigh",
      status: "resolved",
      impact: { start: "2026-12-01T19:36:44.119Z", end: "2026-12-01T20:01:44.119Z", endFrom: "source" },
    });
    const seen = timeline.entries.map((entry) => {
      switch (entry.kind) {
        case "alert":
          return `alert ${entry.what}${entry.endsAt ? ` ends ${entry.endsAt}` : ""}`;
        case "run_started":
          return `${entry.resumed ? "resumed" : "started"} as ${entry.by}`;
        case "step":
          return `step ${entry.callId} ${entry.tool} ${entry.ok ? "ok" : "failed"}: ${entry.found}`;
        case "pause":
          return `pause ${entry.calls.map((call) => call.callId).join(",")}`;
        case "answer":
          return `answer ${entry.callId} ${entry.action} by ${entry.by} (${entry.role})`;
        case "action":
          return `action ${entry.callId} ${entry.ok ? "ok" : "failed"} after ${entry.decision.action} by ${entry.decision.by}`;
        case "conclusion":
          return `conclusion: ${entry.text}`;
        case "run_finished":
          return `finished ${entry.stopReason}`;
        case "notice":
          return `notice ${entry.event}`;
        case "silenced":
          return `silenced ${entry.silenceIds.join(",")}`;
        case "resolved":
          return `resolved ${entry.resolution}`;
      }
    });
    expect(seen).toEqual([
      "alert fired",
      "started as alertmanager",
      `step ${QUERY_CALL} query_metrics ok: {"query":"payment_errors","series":[{"service":"payment-service","value":9}],"threshold":5}`,
      "conclusion: payment-service reports 9 errors per second, above the threshold of 5.",
      "finished final_answer",
      "alert redelivered",
      "started as olivia",
      `pause ${SILENCE_CALL}`,
      "finished interrupted",
      "resumed as olivia",
      `answer ${SILENCE_CALL} approve by olivia (operator)`,
      `action ${SILENCE_CALL} ok after approve by olivia`,
      "conclusion: Silenced PaymentErrorsHigh for 2 hours.",
      "finished final_answer",
      "alert resolved ends 2026-12-01T20:01:44.119Z",
    ]);
    // Every time is UTC ISO 8601, in order.
    const times = timeline.entries.map((entry) => entry.at);
    expect(times.every((at) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at))).toBe(true);
    expect([...times].sort()).toEqual(times);
  });

  it("drafts a postmortem naming the approver, citing the query's call id, and flagging the invented number", async () => {
    const response = await server.operator.request("GET", `/api/incidents/${incidentId}/postmortem`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(response.headers.get("x-postmortem-written-by")).toBe("model");
    const markdown = await response.text();
    const link = (callId: string) => `http://127.0.0.1:8787/?thread=${threadId}#call-${callId}`;
    expect(markdown).toContain(
      `which reported 9 errors per second [\`${QUERY_CALL}\`](${link(QUERY_CALL)}).\nThe errors cost **73519 (unverified)** failed payments`,
    );
    expect(markdown).toContain(
      `> payment-service reports 9 errors per second, above the threshold of 5. ([\`${QUERY_CALL}\`](${link(QUERY_CALL)}))`,
    );
    expect(markdown).toContain("; approved by olivia (operator) at ");
    expect(markdown).toContain("- End: 2026-12-01T20:01:44.119Z (from alertmanager)\n- Duration: 25m");
    expect(markdown).toContain("## Unverified\n\n- number `73519`: held by no tool result and no record\n");
    // The draft written when the alert resolved is served as stored: the model was asked once.
    expect(server.model.calls).toHaveLength(5);
  });

  it("serves the draft as a download", async () => {
    const response = await server.operator.request("GET", `/api/incidents/${incidentId}/postmortem?download=1`);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="postmortem-${incidentId}.md"`);
    expect((await response.text()).startsWith("# Postmortem draft: PaymentErrorsHigh")).toBe(true);
  });

  it("refuses a viewer as the incident routes do, and answers 404 for an unknown incident", async () => {
    for (const path of [
      `/api/incidents/${incidentId}`,
      `/api/incidents/${incidentId}/timeline`,
      `/api/incidents/${incidentId}/postmortem`,
    ]) {
      const refused = await server.viewer.request("GET", path);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        error: { code: "forbidden", message: "Only operators and admins may read incidents." },
      });
    }
    for (const path of ["/api/incidents/inc_nope/timeline", "/api/incidents/inc_nope/postmortem"]) {
      const missing = await server.operator.request("GET", path);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: { code: "incident_not_found", message: "No incident inc_nope." } });
    }
    expect((await new ApiClient(server.url).request("GET", `/api/incidents/${incidentId}/timeline`)).status).toBe(401);
  });
});
