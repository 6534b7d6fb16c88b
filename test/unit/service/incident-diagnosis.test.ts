import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/contracts/events.js";
import { diagnosisOf } from "../../../src/service/incidents/diagnosis.js";
import { conclusionOf, pastIncidentsText } from "../../../src/service/incidents/past-incidents.js";
import type { IncidentAnswer } from "../../../src/service/incidents/reports.js";
import type { IncidentRow } from "../../../src/storage/types.js";

const THREAD = "incident-inc_0123456789abcdef01234567";
const WRITES = new Set(["alertmanager_create_silence", "restart_service"]);
const isWrite = (tool: string) => WRITES.has(tool);

const DIAGNOSIS =
  "PaymentHighErrorRate: payment-service returns 502s since 19:30 (call_q1: 42 errors/min); the gateway pool is exhausted.";
const SILENCED = "Silenced PaymentHighErrorRate until 21:36: silence id 0f3c-11.";

let seq = 0;
const at = <T extends object>(runId: string, event: T) => ({ threadId: THREAD, runId, seq: ++seq, ...event });
const result = (runId: string, callId: string, tool: string, summary: string, extra: object = {}) =>
  at(runId, { type: "tool_result" as const, callId, tool, ok: true, summary, durationMs: 5, ...extra });
const answer = (runId: string, content: string) => [
  at(runId, { type: "assistant_message" as const, messageId: `m-${seq}`, content }),
  at(runId, { type: "run_finished" as const, stopReason: "final_answer" as const, steps: 2, durationMs: 9 }),
];

/** The investigation (two reads, one cited), then an operator's silence, approved by olivia, as recorded. */
function investigatedThenSilenced(): RunEvent[] {
  seq = 0;
  return [
    at("run-1", { type: "run_started" as const }),
    result("run-1", "call_q1", "prometheus_query", '{"query":"rate(errors[5m])","rows":[["payment-service","42"]]}'),
    result("run-1", "call_d1", "search_docs", "3 result(s)"),
    ...answer("run-1", DIAGNOSIS),
    at("run-2", { type: "run_started" as const }),
    result("run-2", "call_l1", "alertmanager_silences", "0 item(s)"),
    at("run-2", {
      type: "loop_interrupt" as const,
      interruptId: "int-1",
      interruptType: "confirm_risky" as const,
      reason: "alertmanager_create_silence needs approval",
      calls: [
        { callId: "call_s1", tool: "alertmanager_create_silence", args: {}, argsHash: "h", risk: "high" as const },
      ],
    }),
    at("run-2", { type: "run_finished" as const, stopReason: "interrupted" as const, steps: 1, durationMs: 3 }),
    at("run-2", { type: "run_started" as const, resumed: true }),
    result("run-2", "call_s1", "alertmanager_create_silence", '{"silenceId":"0f3c-11","state":"active"}', {
      decision: { action: "approve", by: "olivia" },
    }),
    ...answer("run-2", SILENCED),
  ] as RunEvent[];
}

describe("diagnosisOf", () => {
  it("keeps the investigation's answer and the reads it cites, not the silence's report, and the silence with its approver", () => {
    expect(diagnosisOf(investigatedThenSilenced(), isWrite)).toEqual({
      answer: DIAGNOSIS,
      evidence: [
        {
          callId: "call_q1",
          tool: "prometheus_query",
          showed: '{"query":"rate(errors[5m])","rows":[["payment-service","42"]]}',
        },
      ],
      actions: [
        {
          callId: "call_s1",
          tool: "alertmanager_create_silence",
          ok: true,
          outcome: '{"silenceId":"0f3c-11","state":"active"}',
          approvedBy: ["olivia"],
        },
      ],
    });
  });

  it("takes every successful read as evidence when the answer cites none, and tells writes by approval without a registry", () => {
    const events = investigatedThenSilenced().map((event) =>
      event.type === "assistant_message" && event.content === DIAGNOSIS
        ? { ...event, content: "The gateway pool is exhausted." }
        : event,
    );
    const diagnosis = diagnosisOf(events);
    expect(diagnosis.answer).toBe("The gateway pool is exhausted.");
    expect(diagnosis.evidence.map((read) => read.callId)).toEqual(["call_q1", "call_d1"]);
    expect(diagnosis.actions.map((action) => [action.tool, action.approvedBy])).toEqual([
      ["alertmanager_create_silence", ["olivia"]],
    ]);
  });

  it("keeps a later investigation without writes over the first, and leaves out writes that never ran", () => {
    const events = [
      ...investigatedThenSilenced(),
      at("run-3", { type: "run_started" as const }),
      result("run-3", "call_q2", "prometheus_query", '{"rows":[["payment-service","3"]]}'),
      result("run-3", "call_r1", "restart_service", "rejected_by_user: no", {
        ok: false,
        errorCode: "rejected_by_user",
        decision: { action: "reject", by: "ada" },
      }),
      ...answer("run-3", "Errors are back to 3/min: the pool recovered."),
    ] as RunEvent[];
    // run-3 proposed a write (rejected): its answer reports on it, so run-1's diagnosis stays.
    expect(diagnosisOf(events, isWrite).answer).toBe(DIAGNOSIS);
    const withoutWrite = events.filter((event) => !(event.type === "tool_result" && event.callId === "call_r1"));
    const later = diagnosisOf(withoutWrite, isWrite);
    expect(later.answer).toBe("Errors are back to 3/min: the pool recovered.");
    expect(later.evidence.map((read) => read.callId)).toEqual(["call_q2"]);
    expect(later.actions.map((action) => action.callId)).toEqual(["call_s1"]);
  });

  it("falls back to the last answer when every answered run wrote, and to nothing without answers", () => {
    const events = investigatedThenSilenced().filter((event) => event.runId === "run-2");
    expect(diagnosisOf(events, isWrite)).toMatchObject({
      answer: SILENCED,
      evidence: [{ callId: "call_l1", tool: "alertmanager_silences", showed: "0 item(s)" }],
    });
    expect(diagnosisOf([], isWrite)).toEqual({ answer: "", evidence: [], actions: [] });
  });
});

const incident: IncidentRow = {
  incidentId: "inc_0123456789abcdef01234567",
  source: "alertmanager",
  groupKey: "g",
  threadId: THREAD,
  status: "firing",
  alertname: "PaymentHighErrorRate",
  labels: { service: "payment-service" },
  startsAt: "2026-12-01T19:36:44.119Z",
  fingerprints: ["a"],
  createdAt: 1,
};

describe("an incident's conclusion", () => {
  it("is its diagnosis, evidence and actions when the silence's run ends, and reads so in the next first message", () => {
    const events = investigatedThenSilenced();
    const report: IncidentAnswer = {
      incident,
      threadId: THREAD,
      runId: "run-2",
      stopReason: "final_answer",
      answer: SILENCED,
      at: Date.UTC(2026, 11, 1, 20, 5),
      events,
    };
    const conclusion = conclusionOf(report, "https://ops.example.com/", isWrite);
    expect(conclusion).toMatchObject({ conclusion: DIAGNOSIS, stopReason: "final_answer" });
    expect(pastIncidentsText([conclusion])).toBe(
      [
        "Past incidents like this one (newest first):",
        `- 2026-12-01 20:05 UTC, https://ops.example.com/?thread=${THREAD}`,
        `  ${DIAGNOSIS}`,
        '  Evidence: prometheus_query [call_q1] showed {"query":"rate(errors[5m])","rows":[["payment-service","42"]]}',
        '  Done: alertmanager_create_silence [call_s1], approved by olivia, ok: {"silenceId":"0f3c-11","state":"active"}',
      ].join("\n"),
    );
  });

  it("masks and cuts what the evidence showed", () => {
    const text = pastIncidentsText([
      {
        incidentId: "inc_a",
        alertname: "PaymentHighErrorRate",
        labels: {},
        threadId: "t",
        link: "https://ops.example.com/?thread=t",
        conclusion: "Pool exhausted.",
        stopReason: "final_answer",
        at: 0,
        evidence: [{ callId: "c1", tool: "read_config", showed: `password=hunter2secret ${"x ".repeat(200)}` }],
        actions: [{ callId: "c2", tool: "restart_service", ok: false, outcome: "timeout: no answer", approvedBy: [] }],
      },
    ]);
    const [, , , evidence, done] = text.split("\n");
    expect(evidence).toMatch(/^ {2}Evidence: read_config \[c1\] showed password=\[masked\] x x .*…$/);
    expect(evidence!.length).toBeLessThan(220);
    expect(done).toBe("  Done: restart_service [c2], failed: timeout: no answer");
  });
});
