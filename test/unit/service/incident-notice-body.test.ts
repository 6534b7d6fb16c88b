import { describe, expect, it } from "vitest";
import {
  answerSummary,
  cutSummary,
  incidentNotice,
  incidentText,
  incidentWebhookBody,
  pauseSummary,
} from "../../../src/service/incidents/notice-body.js";
import type { PauseEvent } from "../../../src/service/notices/pause-webhook-body.js";
import type { IncidentRow } from "../../../src/storage/types.js";

const incident: IncidentRow = {
  incidentId: "inc_0123456789abcdef01234567",
  source: "alertmanager",
  groupKey: '{}:{alertname="PaymentHighErrorRate"}',
  threadId: "incident-inc_0123456789abcdef01234567",
  status: "firing",
  alertname: "PaymentHighErrorRate",
  severity: "critical",
  labels: { service: "payment-service" },
  startsAt: "2026-12-01T19:36:44.119Z",
  fingerprints: ["1a"],
  createdAt: 1,
};

const pause: PauseEvent = {
  type: "loop_interrupt",
  threadId: incident.threadId,
  runId: "run-1",
  seq: 9,
  interruptId: "int-1",
  interruptType: "confirm_risky",
  reason: "restart_service is high risk and needs your approval",
  calls: [
    {
      callId: "c1",
      tool: "restart_service",
      args: { service: "payment-service", environment: "prod" },
      argsHash: "h",
      risk: "high",
    },
  ],
};

const answered = incidentNotice({
  incident,
  event: "answered",
  runId: "run-1",
  stopReason: "final_answer",
  summary: answerSummary("The error rate comes from a bad deploy; roll back v2.3.1."),
  publicUrl: "https://ops.example.com/",
});

const LINK = `https://ops.example.com/?thread=${incident.threadId}`;

describe("incident notice bodies", () => {
  it("carries the incident, the run and the answer as generic JSON", () => {
    expect(incidentWebhookBody(answered, "json")).toEqual({
      type: "incident",
      event: "answered",
      incidentId: incident.incidentId,
      source: "alertmanager",
      alertname: "PaymentHighErrorRate",
      severity: "critical",
      status: "firing",
      threadId: incident.threadId,
      runId: "run-1",
      link: LINK,
      stopReason: "final_answer",
      summary: "The error rate comes from a bad deploy; roll back v2.3.1.",
    });
  });

  it("writes a title line, the summary and the link for the chats, each in its own body shape", () => {
    const text = [
      "✅ PaymentHighErrorRate [critical, firing]: opspilot answered",
      "The error rate comes from a bad deploy; roll back v2.3.1.",
      `Thread ${incident.threadId}: ${LINK}`,
    ].join("\n");
    expect(incidentText(answered)).toBe(text);
    expect(incidentWebhookBody(answered, "slack")).toEqual({
      text,
      blocks: [{ type: "section", text: { type: "mrkdwn", text } }],
    });
    expect(incidentWebhookBody(answered, "feishu")).toEqual({ msg_type: "text", content: { text } });
    expect(incidentWebhookBody(answered, "dingtalk")).toEqual({ msgtype: "text", text: { content: text } });
  });

  it("says a pause waits for a person, with its reason and the waiting calls' args", () => {
    const notice = incidentNotice({
      incident: { ...incident, severity: undefined, status: "resolved" },
      event: "paused",
      runId: "run-1",
      stopReason: "interrupted",
      summary: pauseSummary(pause),
      publicUrl: "https://ops.example.com/",
    });
    expect(notice).toMatchObject({ event: "paused", severity: null, status: "resolved", stopReason: "interrupted" });
    expect(incidentText(notice)).toBe(
      [
        "⏸ PaymentHighErrorRate [resolved]: opspilot is waiting for a person",
        "restart_service is high risk and needs your approval",
        '• restart_service {"service":"payment-service","environment":"prod"}',
        `Thread ${incident.threadId}: ${LINK}`,
      ].join("\n"),
    );
  });

  it("names the stop reason of a run that ended without a final answer", () => {
    const stopped = incidentNotice({
      incident,
      event: "answered",
      runId: "run-1",
      stopReason: "max_steps",
      summary: "Stopped after 8 steps.",
      publicUrl: "https://ops.example.com/",
    });
    expect(incidentText(stopped).split("\n")[0]).toBe(
      "⚠ PaymentHighErrorRate [critical, firing]: opspilot stopped (max_steps)",
    );
    expect(answerSummary("  \n")).toBe("(the run ended without an answer)");
  });

  it("cuts a long summary to 1500 characters with an ellipsis, never inside a character", () => {
    expect(cutSummary("short answer  ")).toBe("short answer");
    const long = cutSummary("x".repeat(2_000));
    expect(long).toHaveLength(1_500);
    expect(long.endsWith("x…")).toBe(true);
    // 1,600 characters outside the BMP: each is two UTF-16 units, and none may be split.
    const emoji = cutSummary("🚨".repeat(1_600));
    expect(Array.from(emoji)).toHaveLength(1_500);
    expect(emoji).toBe("🚨".repeat(1_499) + "…");
    expect(cutSummary("a".repeat(1_500))).toBe("a".repeat(1_500));
  });
});
