import type { RunEvent } from "../../contracts/events.js";

/** A read the diagnosis rests on: which call, and what it showed (its result's summary, masked as the events are). */
export interface Evidence {
  callId: string;
  tool: string;
  showed: string;
}

/** A write that ran on the incident's thread, and who approved it. */
export interface Action {
  callId: string;
  tool: string;
  ok: boolean;
  /** Its result's summary, or the error's. */
  outcome: string;
  /** Everyone whose approval counted (none when it needed no approval). */
  approvedBy: string[];
}

/** What an incident's thread found and did. */
export interface Diagnosis {
  /** The investigation's answer: not an action's report (a run that ran writes), unless no other run answered. */
  answer: string;
  /** The reads of the run that gave the answer: those its answer names by call id, else all that succeeded. */
  evidence: Evidence[];
  /** Every write that ran on the thread, in order. */
  actions: Action[];
}

type ToolResult = Extract<RunEvent, { type: "tool_result" }>;

/** One run's (pauses included) answer and results. */
interface RunSummary {
  answer: string;
  answered: boolean;
  results: ToolResult[];
}

/** Most evidence kept per diagnosis. */
const MAX_EVIDENCE = 4;

/** Outcomes of a call that never ran: not something done. */
const NOT_RUN = new Set([
  "rejected_by_user",
  "skipped",
  "cancelled",
  "permission_denied",
  "invalid_args",
  "unknown_tool",
]);

/** The runs of a thread's recorded events, in the order they started. */
function runsOf(events: readonly RunEvent[]): RunSummary[] {
  const runs = new Map<string, RunSummary>();
  for (const event of events) {
    let run = runs.get(event.runId);
    if (!run) runs.set(event.runId, (run = { answer: "", answered: false, results: [] }));
    if (event.type === "assistant_message") run.answer = event.content;
    else if (event.type === "tool_result") run.results.push(event);
    else if (event.type === "run_finished" && event.stopReason !== "interrupted") run.answered = run.answer.length > 0;
  }
  return [...runs.values()];
}

/**
 * Reads what an incident's thread found and did from its recorded events. The answer is that of
 * the latest run that ran no write and read something; else of the first run that ran no write;
 * else the last answer. A write is what `isWrite` says (the registry's `readOnly: false`); without
 * it, a call a person approved or edited.
 */
export function diagnosisOf(events: readonly RunEvent[], isWrite?: (tool: string) => boolean): Diagnosis {
  const write = (result: ToolResult) =>
    isWrite ? isWrite(result.tool) : result.decision?.action === "approve" || result.decision?.action === "edit";
  const runs = runsOf(events).filter((run) => run.answered);
  const findings = runs.filter((run) => !run.results.some(write));
  const chosen = findings.findLast((run) => run.results.some((result) => result.ok)) ?? findings[0] ?? runs.at(-1);
  const reads = (chosen?.results ?? []).filter((result) => result.ok && !write(result));
  const cited = reads.filter((result) => chosen!.answer.includes(result.callId));
  const evidence = (cited.length > 0 ? cited : reads)
    .slice(0, MAX_EVIDENCE)
    .map(({ callId, tool, summary }) => ({ callId, tool, showed: summary }));
  // By call id: a recovered run may record a result again.
  const ran = new Map<string, ToolResult>();
  for (const event of events)
    if (event.type === "tool_result" && write(event) && (event.ok || !NOT_RUN.has(event.errorCode ?? "")))
      ran.set(event.callId, event);
  const actions = [...ran.values()].map((result) => ({
    callId: result.callId,
    tool: result.tool,
    ok: result.ok,
    outcome: result.summary,
    approvedBy: approversOf(result),
  }));
  return { answer: chosen?.answer ?? "", evidence, actions };
}

/** Who approved a call: every approval that counted, or the one person who answered its pause. */
function approversOf(result: ToolResult): string[] {
  const decision = result.decision;
  if (!decision || (decision.action !== "approve" && decision.action !== "edit")) return [];
  return decision.approvers?.length ? decision.approvers : [decision.by];
}
