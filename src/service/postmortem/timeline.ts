import type { RunEvent } from "../../contracts/events.js";
import type { IncidentLogEntry, IncidentRow, TimedEvent } from "../../storage/types.js";
import { incidentState } from "../incidents/incident-state.js";
import type { AlertHappening, ImpactWindow, IncidentTimeline, TimelineEntry, UntimedEntry } from "./timeline-entry.js";

/** Everything opspilot recorded about one incident: its row, its log, its thread's events and records. */
export interface IncidentRecords {
  incident: IncidentRow;
  /** Alert deliveries and notices, oldest first. */
  log: readonly IncidentLogEntry[];
  /** The thread's recorded events with their times, in order. */
  events: readonly TimedEvent[];
  /** The thread's records (`Storage.threadRecords`): runs (who ran them) and pause decisions. */
  runs: ReadonlyArray<Record<string, unknown>>;
  toolCalls: ReadonlyArray<Record<string, unknown>>;
  decisions: ReadonlyArray<Record<string, unknown>>;
}

/** The longest conclusion a timeline entry quotes; the postmortem reads the whole answer. */
const CONCLUSION_CHARS = 600;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The incident's timeline, from its records only: each alert delivery (with the source's times),
 * each run, investigation step and what it found, each pause, who answered it and how, each action
 * and its outcome, each run's conclusion, and each notice sent. Pure.
 */
export function buildTimeline(records: IncidentRecords): IncidentTimeline {
  const { incident } = records;
  const timed: Array<{ ms: number; entry: TimelineEntry }> = [];
  const add = (ms: number, entry: UntimedEntry) =>
    timed.push({ ms, entry: { ...entry, at: iso(ms) } as TimelineEntry });
  for (const logged of records.log) add(logged.at, logEntry(logged));
  eventEntries(records, add);
  for (const decision of records.decisions) add(Number(decision.decided_at), answerEntry(decision, records.events));
  if (incident.silencedAt !== undefined)
    add(incident.silencedAt, { kind: "silenced", silenceIds: incident.silenceIds ?? [] });
  // A resolution the source sent is its alert entry; one found by the reconciliation has no delivery.
  if (incident.resolvedAt !== undefined && incident.resolution === "resolved_while_silenced")
    add(incident.resolvedAt, { kind: "resolved", resolution: incident.resolution });
  // A stable sort: entries of one millisecond keep the order they were recorded in.
  timed.sort((left, right) => left.ms - right.ms);
  return {
    incidentId: incident.incidentId,
    threadId: incident.threadId,
    source: incident.source,
    alertname: incident.alertname,
    severity: incident.severity ?? null,
    labels: incident.labels,
    status: incidentState(incident),
    impact: impactWindow(incident, records.log),
    entries: timed.map(({ entry }) => entry),
  };
}

type Add = (ms: number, entry: UntimedEntry) => void;

function logEntry(logged: IncidentLogEntry): UntimedEntry {
  const detail = logged.detail;
  const text = (key: string) => (typeof detail[key] === "string" ? (detail[key] as string) : undefined);
  if (logged.kind === "notice")
    return {
      kind: "notice",
      channel: text("channel") ?? "webhook",
      event: text("event") ?? "",
      ok: detail.ok === true,
      summary: text("summary") ?? "",
      ...(text("failure") ? { failure: text("failure") } : {}),
    };
  return {
    kind: "alert",
    what: happening(text("outcome"), text("status")),
    source: text("source") ?? "",
    startsAt: text("startsAt") ?? "",
    ...(text("endsAt") ? { endsAt: text("endsAt") } : {}),
    ...(text("occurredAt") ? { occurredAt: text("occurredAt") } : {}),
    alerts: Number(detail.alerts ?? 0),
  };
}

function happening(outcome: string | undefined, status: string | undefined): AlertHappening {
  if (outcome === "opened") return "fired";
  if (outcome === "follow_up") return "grouped";
  if (outcome === "resolved") return "resolved";
  return status === "resolved" ? "resolved" : "redelivered";
}

/** Runs, steps, pauses, actions, conclusions and run ends from the thread's events. */
function eventEntries(records: IncidentRecords, add: Add): void {
  const calls = new Map<string, { tool: string; args: string }>();
  const summaries = new Map(records.toolCalls.map((row) => [row.call_id as string, row.args_summary as string | null]));
  const users = new Map(records.runs.map((row) => [row.run_id as string, row.user_id as string]));
  const lastAnswer = new Map<string, { ms: number; text: string }>();
  for (const { event, at } of records.events) {
    switch (event.type) {
      case "run_started": {
        const by = users.get(event.runId);
        add(at, { kind: "run_started", runId: event.runId, resumed: event.resumed === true, ...(by ? { by } : {}) });
        break;
      }
      case "tool_call":
        calls.set(event.callId, { tool: event.tool, args: summaries.get(event.callId) ?? argsLine(event.args) });
        break;
      case "tool_result":
        add(at, resultEntry(event, calls.get(event.callId)?.args ?? argsLine(event.args)));
        break;
      case "loop_interrupt":
        add(at, {
          kind: "pause",
          runId: event.runId,
          interruptId: event.interruptId,
          reason: event.reason,
          calls: event.calls.map((call) => ({ callId: call.callId, tool: call.tool })),
        });
        break;
      case "assistant_message":
        lastAnswer.set(event.runId, { ms: at, text: event.content });
        break;
      case "run_finished": {
        const answer = lastAnswer.get(event.runId);
        if (answer && event.stopReason !== "interrupted")
          add(answer.ms, { kind: "conclusion", runId: event.runId, text: clip(answer.text, CONCLUSION_CHARS) });
        lastAnswer.delete(event.runId);
        add(at, { kind: "run_finished", runId: event.runId, stopReason: event.stopReason });
        break;
      }
      default: {
        const _exhaustive: never = event;
        void _exhaustive;
      }
    }
  }
}

/** A call's result: an action when a person's answer let it run (or refused it), else a step of the investigation. */
function resultEntry(event: Extract<RunEvent, { type: "tool_result" }>, args: string): UntimedEntry {
  const failed = event.ok ? {} : { errorCode: event.errorCode };
  if (event.decision)
    return {
      kind: "action",
      ...{ runId: event.runId, callId: event.callId, tool: event.tool, args, ok: event.ok, ...failed },
      outcome: event.summary,
      decision: {
        action: event.decision.action,
        by: event.decision.by,
        ...(event.decision.approvers ? { approvers: event.decision.approvers } : {}),
      },
    };
  return {
    kind: "step",
    ...{ runId: event.runId, callId: event.callId, tool: event.tool, args, ok: event.ok, ...failed },
    found: event.summary,
  };
}

function answerEntry(decision: Record<string, unknown>, events: readonly TimedEvent[]): UntimedEntry {
  const callId = decision.call_id as string;
  const call = events.find(({ event }) => event.type === "tool_call" && event.callId === callId)?.event;
  const approvals = decision.approvals ? (JSON.parse(decision.approvals as string) as Array<{ userId: string }>) : [];
  return {
    kind: "answer",
    callId,
    tool: call?.type === "tool_call" ? call.tool : "",
    action: decision.action as string,
    by: (decision.user_id as string | null) ?? "",
    ...(decision.role ? { role: decision.role as string } : {}),
    ...(decision.message ? { message: decision.message as string } : {}),
    ...(approvals.length > 1 ? { approvers: approvals.map((approval) => approval.userId) } : {}),
  };
}

/** From the source's start to its end (Alertmanager's `endsAt`, PagerDuty's `occurred_at`), else to when opspilot heard. */
function impactWindow(incident: IncidentRow, log: readonly IncidentLogEntry[]): ImpactWindow {
  if (incident.status === "firing") return { start: incident.startsAt, end: null, endFrom: null };
  const resolution = log.find((entry) => entry.kind === "delivery" && entry.detail.outcome === "resolved");
  const sourceEnd = resolution?.detail.endsAt ?? resolution?.detail.occurredAt;
  if (typeof sourceEnd === "string") return { start: incident.startsAt, end: sourceEnd, endFrom: "source" };
  const received = incident.resolvedAt ?? resolution?.at;
  return received === undefined
    ? { start: incident.startsAt, end: null, endFrom: null }
    : { start: incident.startsAt, end: iso(received), endFrom: "received" };
}

/** Args as one line, `name=value` pairs, for calls whose records hold no summary. */
function argsLine(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  return Object.entries(args as Record<string, unknown>)
    .map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
