import type { UnobservedFact } from "../../contracts/facts.js";
import { checkClaims, type CheckedText, type ClaimSources } from "./claims.js";
import { durationText, entryText, type CallLink } from "./entry-text.js";
import type { Evidence } from "./incident-records.js";
import type { IncidentTimeline, TimelineEntry } from "./timeline-entry.js";

/** What a postmortem draft is written from. */
export interface DraftInput {
  timeline: IncidentTimeline;
  /** The successful tool results its claims may rest on. */
  evidence: readonly Evidence[];
  /** Each run's whole final answer, oldest first. */
  conclusions: ReadonlyArray<{ runId: string; text: string }>;
  /** The model's narrative (summary and findings), when a model wrote one; checked like every claim. */
  narrative?: string;
  /** Why a model asked for the narrative gave none. */
  narrativeFailure?: string;
  /** Where the page opens a call's result. */
  link: CallLink;
  /** Epoch ms the draft is written. */
  writtenAt: number;
}

/** A postmortem draft and what its check found. */
export interface PostmortemDraft {
  markdown: string;
  /** Numbers and names in the narrative or the conclusions that no tool result or record holds. */
  unverified: UnobservedFact[];
  /** Call ids the draft cites. */
  cited: string[];
}

/**
 * The postmortem draft in Markdown: summary, impact window, timeline, findings (each line linked
 * to the results holding its numbers and names), actions and who approved them, open questions,
 * follow-ups, and the unverified facts. Every time, number and name comes from the records or a
 * cited result; a narrative or a conclusion that says more has it marked. Pure.
 */
export function assemblePostmortem(input: DraftInput): PostmortemDraft {
  const { timeline, link } = input;
  const sources: ClaimSources = {
    evidence: input.evidence,
    records: JSON.stringify(timeline),
    callIds: new Set(timeline.entries.flatMap((entry) => ("callId" in entry ? [entry.callId] : []))),
    link,
  };
  const checked: CheckedText[] = [];
  const check = (text: string) => {
    const result = checkClaims(text, sources);
    checked.push(result);
    return result.markdown;
  };
  const summary = input.narrative ? check(input.narrative) : recordsSummary(timeline);
  const findings = findingLines(timeline, link);
  const concluded = input.conclusions.map(({ text }) => quote(check(text)));
  const unverified = checked.flatMap((result) => result.unverified);
  const cited = [...new Set([...checked.flatMap((result) => result.cited), ...stepCalls(timeline)])];
  const lines = [
    `# Postmortem draft: ${timeline.alertname} (${timeline.incidentId})`,
    "",
    `_Written ${new Date(input.writtenAt).toISOString()} from opspilot's records${input.narrative ? "; the narrative is a model's, checked against the tool results it cites" : ""}. Times are UTC._`,
    ...(input.narrativeFailure
      ? ["", `_The model wrote no narrative (${input.narrativeFailure}): assembled from the records._`]
      : []),
    "",
    "## Summary",
    "",
    summary,
    "",
    "## Impact window",
    "",
    ...impactLines(timeline),
    "",
    "## Timeline",
    "",
    "| Time (UTC) | What happened |",
    "| --- | --- |",
    ...timeline.entries.map((entry) => `| ${entry.at} | ${entryText(entry, link)} |`),
    "",
    "## What the investigation found",
    "",
    ...(findings.length > 0 ? findings : ["- No tool result was recorded."]),
    ...concluded.flatMap((text) => ["", "The investigation concluded:", "", text]),
    "",
    "## Actions taken",
    "",
    ...orNone(actionLines(timeline, link), "- No action was taken."),
    "",
    "## Open questions",
    "",
    ...orNone(openQuestions(timeline, unverified), "- None recorded."),
    "",
    "## Follow-ups",
    "",
    ...followUps(timeline),
    "",
    "## Unverified",
    "",
    ...orNone(
      unverified.map((fact) => `- ${fact.kind} \`${fact.fact}\`: held by no tool result and no record`),
      "- Nothing: every number and name above is held by a cited tool result or the records.",
    ),
    "",
  ];
  return { markdown: lines.join("\n"), unverified, cited };
}

type Entry<Kind extends TimelineEntry["kind"]> = Extract<TimelineEntry, { kind: Kind }>;
const ofKind = <Kind extends TimelineEntry["kind"]>(timeline: IncidentTimeline, kind: Kind) =>
  timeline.entries.filter((entry): entry is Entry<Kind> => entry.kind === kind);

const orNone = (lines: string[], none: string) => (lines.length > 0 ? lines : [none]);
const quote = (text: string) =>
  text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
const stepCalls = (timeline: IncidentTimeline) =>
  ofKind(timeline, "step").flatMap((step) => (step.ok ? [step.callId] : []));

/** The summary the records alone give. */
function recordsSummary(timeline: IncidentTimeline): string {
  const labels = Object.entries(timeline.labels)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
  const steps = ofKind(timeline, "step").length;
  const actions = ofKind(timeline, "action").filter((action) => action.ok).length;
  const runs = ofKind(timeline, "run_started").filter((run) => !run.resumed).length;
  const end = timeline.impact.end ? `resolved at ${timeline.impact.end}` : "still firing";
  return (
    `${timeline.alertname}${timeline.severity ? ` (${timeline.severity})` : ""} from ${timeline.source} fired at ` +
    `${timeline.impact.start}${labels ? ` for ${labels}` : ""}, and is ${end}. opspilot investigated in ${runs} run(s) ` +
    `with ${steps} tool call(s) and took ${actions} action(s).`
  );
}

function impactLines(timeline: IncidentTimeline): string[] {
  const { start, end, endFrom } = timeline.impact;
  if (!end) return [`- Start: ${start} (the alert's start, from ${timeline.source})`, "- End: still firing"];
  const whose = endFrom === "source" ? `from ${timeline.source}` : "when opspilot heard of the resolution";
  const lasted = Date.parse(end) - Date.parse(start);
  return [
    `- Start: ${start} (the alert's start, from ${timeline.source})`,
    `- End: ${end} (${whose})`,
    ...(Number.isNaN(lasted) ? [] : [`- Duration: ${durationText(lasted)}`]),
  ];
}

function findingLines(timeline: IncidentTimeline, link: CallLink): string[] {
  return ofKind(timeline, "step").map((step) => `- ${entryText(step, link)}`);
}

/** How a pause's answer reads after the action. */
const DECIDED: Readonly<Record<string, string>> = {
  approve: "approved",
  edit: "edited and approved",
  reject: "rejected",
  expire: "expired unanswered, closed",
};

function actionLines(timeline: IncidentTimeline, link: CallLink): string[] {
  const answers = ofKind(timeline, "answer");
  return ofKind(timeline, "action").map((action) => {
    const answer = answers.find((candidate) => candidate.callId === action.callId);
    const role = answer?.role ? ` (${answer.role})` : "";
    const who = (action.decision.approvers ?? [action.decision.by]).join(" and ");
    const verb = DECIDED[action.decision.action] ?? action.decision.action;
    return `- ${entryText(action, link)}; ${verb} by ${who}${role}${answer ? ` at ${answer.at}` : ""}`;
  });
}

function openQuestions(timeline: IncidentTimeline, unverified: readonly UnobservedFact[]): string[] {
  const failed = ofKind(timeline, "step").filter((step) => !step.ok);
  const answered = new Set(ofKind(timeline, "answer").map((answer) => answer.callId));
  const waiting = ofKind(timeline, "pause").flatMap((pause) =>
    pause.calls.filter((call) => !answered.has(call.callId)),
  );
  const stopped = ofKind(timeline, "run_finished").filter(
    (run) => run.stopReason !== "final_answer" && run.stopReason !== "interrupted",
  );
  return [
    ...failed.map((step) => `- \`${step.tool}\` failed (${step.errorCode ?? "error"}): what would it have shown?`),
    ...waiting.map((call) => `- \`${call.tool}\` still waits for a person's answer.`),
    ...stopped.map((run) => `- Run ${run.runId} stopped early (${run.stopReason}): its investigation is unfinished.`),
    ...(timeline.status === "firing" ? ["- The alert is still firing: what ends it?"] : []),
    ...(unverified.length > 0 ? ["- The unverified facts below: where do they come from?"] : []),
  ];
}

function followUps(timeline: IncidentTimeline): string[] {
  const actions = ofKind(timeline, "action").filter((action) => action.ok);
  return [
    ...actions.map((action) => `- Review \`${action.tool}\` ${action.args}: keep, undo, or make it unnecessary.`),
    `- Record what was learned about ${timeline.alertname} in its runbook.`,
    "- Confirm the cause with the service's owners and file the fix.",
  ];
}
