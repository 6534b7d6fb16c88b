import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/contracts/events.js";
import { unobservedFacts } from "../../../src/contracts/facts.js";
import { createPostmortems } from "../../../src/service/postmortem/postmortems.js";
import { assemblePostmortem } from "../../../src/service/postmortem/postmortem-draft.js";
import { buildTimeline, type IncidentRecords } from "../../../src/service/postmortem/timeline.js";
import type { IncidentRow, StoredPostmortem } from "../../../src/storage/types.js";
import { answerMessage, ScriptedChatModel } from "../../fixtures/scripted-model.js";

const T0 = Date.parse("2026-12-01T19:37:00.000Z");
const base = { threadId: "incident-inc_1", runId: "run-1" };
const event = (seq: number, body: Record<string, unknown>, at: number) => ({
  event: { ...base, seq, ...body } as RunEvent,
  at,
});

const incident: IncidentRow = {
  incidentId: "inc_1",
  source: "alertmanager",
  groupKey: "g",
  threadId: "incident-inc_1",
  status: "resolved",
  alertname: "PaymentErrorsHigh",
  severity: "page",
  labels: { service: "payment-service" },
  startsAt: "2026-12-01T19:36:44.119Z",
  resolvedAt: T0 + 60_000,
  fingerprints: [],
  createdAt: T0,
};

const records: IncidentRecords = {
  incident,
  log: [
    {
      incidentId: "inc_1",
      at: T0,
      kind: "delivery",
      detail: { source: "alertmanager", status: "firing", outcome: "opened", startsAt: incident.startsAt, alerts: 1 },
    },
    {
      incidentId: "inc_1",
      at: T0 + 60_000,
      kind: "delivery",
      detail: {
        source: "alertmanager",
        status: "resolved",
        outcome: "resolved",
        startsAt: incident.startsAt,
        endsAt: "2026-12-01T19:59:44.119Z",
        alerts: 0,
      },
    },
    {
      incidentId: "inc_1",
      at: T0 + 5_000,
      kind: "notice",
      detail: { channel: "slack", event: "answered", summary: "9 errors", ok: false, failure: "HTTP 500" },
    },
  ],
  events: [
    event(1, { type: "run_started" }, T0 + 1_000),
    event(
      2,
      { type: "tool_call", callId: "call_q1", tool: "query_metrics", args: { query: "payment_errors" } },
      T0 + 1_100,
    ),
    event(
      3,
      { type: "tool_result", callId: "call_q1", tool: "query_metrics", ok: true, summary: "value 9", durationMs: 5 },
      T0 + 1_200,
    ),
    event(
      4,
      {
        type: "assistant_message",
        messageId: "m1",
        content: "payment-service has 9 errors per second.\nIt started at 19:36.",
      },
      T0 + 1_300,
    ),
    event(5, { type: "run_finished", stopReason: "final_answer", steps: 2, durationMs: 300 }, T0 + 1_400),
  ],
  runs: [{ run_id: "run-1", user_id: "alertmanager" }],
  toolCalls: [{ call_id: "call_q1", args_summary: "query=payment_errors" }],
  decisions: [],
};

describe("an incident's timeline", () => {
  it("lists deliveries, steps, conclusions and notices oldest first in UTC, with the source's end as the impact's", () => {
    const timeline = buildTimeline(records);
    expect(timeline.impact).toEqual({
      start: "2026-12-01T19:36:44.119Z",
      end: "2026-12-01T19:59:44.119Z",
      endFrom: "source",
    });
    expect(timeline.entries).toEqual([
      {
        kind: "alert",
        what: "fired",
        source: "alertmanager",
        startsAt: incident.startsAt,
        alerts: 1,
        at: "2026-12-01T19:37:00.000Z",
      },
      { kind: "run_started", runId: "run-1", resumed: false, by: "alertmanager", at: "2026-12-01T19:37:01.000Z" },
      {
        kind: "step",
        runId: "run-1",
        callId: "call_q1",
        tool: "query_metrics",
        args: "query=payment_errors",
        ok: true,
        found: "value 9",
        at: "2026-12-01T19:37:01.200Z",
      },
      {
        kind: "conclusion",
        runId: "run-1",
        text: "payment-service has 9 errors per second.\nIt started at 19:36.",
        at: "2026-12-01T19:37:01.300Z",
      },
      { kind: "run_finished", runId: "run-1", stopReason: "final_answer", at: "2026-12-01T19:37:01.400Z" },
      {
        kind: "notice",
        channel: "slack",
        event: "answered",
        ok: false,
        summary: "9 errors",
        failure: "HTTP 500",
        at: "2026-12-01T19:37:05.000Z",
      },
      {
        kind: "alert",
        what: "resolved",
        source: "alertmanager",
        startsAt: incident.startsAt,
        endsAt: "2026-12-01T19:59:44.119Z",
        alerts: 0,
        at: "2026-12-01T19:38:00.000Z",
      },
    ]);
  });
});

describe("a postmortem draft", () => {
  const link = (callId: string) => `?thread=incident-inc_1#call-${callId}`;
  const evidence = [{ callId: "call_q1", tool: "query_metrics", text: 'value 9\n{"value":9}' }];

  it("is assembled from the records: each concluding line cites the result holding its numbers", () => {
    const draft = assemblePostmortem({
      timeline: buildTimeline(records),
      evidence,
      conclusions: [{ runId: "run-1", text: "payment-service has 9 errors per second.\nIt started at 19:36." }],
      link,
      writtenAt: T0 + 120_000,
    });
    expect(draft.markdown).toContain(
      "> payment-service has 9 errors per second. ([`call_q1`](?thread=incident-inc_1#call-call_q1))\n> It started at 19:36.\n",
    );
    expect(draft.markdown).toContain("- End: 2026-12-01T19:59:44.119Z (from alertmanager)\n- Duration: 23m");
    expect(draft.markdown).toContain("## Actions taken\n\n- No action was taken.");
    expect(draft.unverified).toEqual([]);
    expect(draft.cited).toEqual(["call_q1"]);
  });

  it("flags a number the scripted model's narrative states that no observation holds", async () => {
    const saved: StoredPostmortem[] = [];
    const storage = {
      incidents: { getIncident: async () => incident },
      incidentLog: {
        incidentLog: async () => [...records.log],
        timedEvents: async () => [...records.events],
        savePostmortem: async (postmortem: StoredPostmortem) => void saved.push(postmortem),
        postmortem: async () => saved.at(-1),
        appendIncidentLog: async () => undefined,
      },
      threadRecords: async () => ({
        runs: [...records.runs],
        toolCalls: [...records.toolCalls],
        steps: [],
        decisions: [],
      }),
      getResult: async () => ({ tool: "query_metrics", raw: { value: 9 } }),
    } as unknown as Parameters<typeof createPostmortems>[0]["storage"];
    const narrator = new ScriptedChatModel({
      script: [answerMessage("payment-service failed 9 times per second [call_q1], losing 1250 payments.")],
    });
    const postmortems = createPostmortems({ storage, narrator, logger: { error: () => undefined } });
    const draft = await postmortems.write("inc_1");
    expect(draft?.writtenBy).toBe("model");
    expect(draft?.markdown).toContain(
      "payment-service failed 9 times per second [`call_q1`](?thread=incident-inc_1#call-call_q1), losing **1250 (unverified)** payments.",
    );
    expect(draft?.markdown).toContain("## Unverified\n\n- number `1250`: held by no tool result and no record\n");
    expect(saved).toHaveLength(1);
  });
});

describe("the fabrication check's core", () => {
  it("finds a number only when no known text writes it as a number", () => {
    expect(
      unobservedFacts("9 errors at 19:36 in 2019", "value 9, 2019-01-01T19:36", { patterns: {}, numbers: true }),
    ).toEqual([]);
    expect(unobservedFacts("19 errors", "in 2019", { patterns: {}, numbers: true })).toEqual([
      { kind: "number", fact: "19" },
    ]);
    expect(unobservedFacts("PAY-5031 and RB-003", "RB-003")).toEqual([{ kind: "error code", fact: "PAY-5031" }]);
  });
});
