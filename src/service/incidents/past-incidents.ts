import { createHash } from "node:crypto";
import type { BaseStore } from "@langchain/langgraph";
import { z } from "zod";
import { canonicalJson } from "../../contracts/formats/canonical.js";
import { StopReasonSchema } from "../../contracts/stop-reasons.js";
import { formatZodIssues } from "../../contracts/formats/zod-issues.js";
import { MASK_TOKENS, maskSensitive } from "../../tools/masking/mask.js";
import type { IncidentAnswer } from "./reports.js";
import { diagnosisOf } from "./diagnosis.js";
import { threadLink } from "../notices/pause-webhook-body.js";

/** The store namespace under which each kind of incident keeps its conclusions: `[...this, incidentLikeKey(...)]`. */
export const PAST_INCIDENTS_NAMESPACE: readonly string[] = ["opspilot", "incidents"];

/**
 * Labels that do not make an alert another one: `severity` changes as an alert escalates, and
 * `alertname` is given on its own (a group's common labels hold it, a caller's may not).
 */
const NOT_IDENTIFYING = new Set(["severity", "alertname"]);

/** Past incidents put in a first message by default. */
const DEFAULT_LIMIT = 3;

/** Items read per store search while collecting an alert's past incidents. */
const PAGE = 100;

/** Characters of one conclusion put in a first message; the link leads to the rest. */
const CONCLUSION_CHARS = 600;

/** Characters of what one piece of evidence showed, or of one action's outcome, put in a first message. */
const DETAIL_CHARS = 160;

/** Pieces of evidence, and actions, put in a first message per past incident. */
const DETAILS_SHOWN = 3;

/** What an incident's investigation concluded, as the store keeps it (key: the incident id). */
export const PastConclusionSchema = z.object({
  incidentId: z.string().min(1).describe("The incident whose run concluded."),
  alertname: z.string().min(1).describe("The alert that opened it."),
  labels: z.record(z.string(), z.string()).describe("The alert group's labels."),
  threadId: z.string().min(1).describe("The incident's thread."),
  link: z.string().min(1).describe("Where a person opens the thread."),
  conclusion: z.string().describe("The investigation's answer: its diagnosis, not an action's report."),
  // Optional: conclusions kept before these existed hold the answer alone.
  evidence: z
    .array(z.object({ callId: z.string(), tool: z.string(), showed: z.string() }))
    .optional()
    .describe("The reads the answer rests on: call id, tool and what the result showed."),
  actions: z
    .array(
      z.object({
        callId: z.string(),
        tool: z.string(),
        ok: z.boolean(),
        outcome: z.string(),
        approvedBy: z.array(z.string()),
      }),
    )
    .optional()
    .describe("The writes that ran on the thread, with their outcome and who approved them."),
  stopReason: StopReasonSchema.describe("How the run ended."),
  at: z.number().int().nonnegative().describe("When it concluded, milliseconds since the epoch."),
});

/** What an incident's investigation concluded. */
export type PastConclusion = z.infer<typeof PastConclusionSchema>;

/**
 * The stable key of "the same alert for the same labels": a hash (32 hex characters, a valid
 * namespace label) of the alert name and the identifying labels, sorted, so label order and a
 * changed severity make no other key.
 */
export function incidentLikeKey(alertname: string, labels: Readonly<Record<string, string>>): string {
  const identifying = Object.fromEntries(Object.entries(labels).filter(([name]) => !NOT_IDENTIFYING.has(name)));
  return createHash("sha256")
    .update(canonicalJson({ alertname, labels: identifying }))
    .digest("hex")
    .slice(0, 32);
}

/** The namespace of one kind of incident's conclusions. */
function namespaceOf(alertname: string, labels: Readonly<Record<string, string>>): string[] {
  return [...PAST_INCIDENTS_NAMESPACE, incidentLikeKey(alertname, labels)];
}

/**
 * Keeps what an incident's run concluded under the incident's id, so a second answer of the same
 * incident replaces the first. Input that does not fit `PastConclusionSchema` is a `TypeError`
 * naming each field, and nothing is written.
 */
export async function recordConclusion(store: BaseStore, conclusion: PastConclusion): Promise<void> {
  const parsed = PastConclusionSchema.safeParse(conclusion);
  if (!parsed.success) throw new TypeError(`Cannot record the incident's conclusion: ${formatZodIssues(parsed.error)}`);
  const value = parsed.data;
  await store.put(namespaceOf(value.alertname, value.labels), value.incidentId, value);
}

/** Options of `pastConclusions`. */
export interface PastConclusionsQuery {
  /** The alert being opened. */
  alertname: string;
  /** Its labels (only the identifying ones count). */
  labels: Readonly<Record<string, string>>;
  /** The incident being opened: never its own past. */
  excludeIncidentId?: string;
  /** Most conclusions returned (3 by default). */
  limit?: number;
}

/**
 * The conclusions of earlier incidents of the same alert with the same labels, newest first by
 * `at`, at most `limit`. Reads the whole namespace, whatever order the store returns it in; an
 * item that does not fit the schema (written there by something else) is left out.
 */
export async function pastConclusions(store: BaseStore, query: PastConclusionsQuery): Promise<PastConclusion[]> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const key = incidentLikeKey(query.alertname, query.labels);
  const namespace = namespaceOf(query.alertname, query.labels);
  // By incident: a write between two pages shifts the offsets, so a page may repeat an item.
  const found = new Map<string, PastConclusion>();
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.search(namespace, { limit: PAGE, offset });
    for (const item of page) {
      // Exactly this namespace: a store's prefix search also returns any namespace below it.
      if (item.namespace.length !== namespace.length || item.key === query.excludeIncidentId) continue;
      const parsed = PastConclusionSchema.safeParse(item.value);
      if (!parsed.success || parsed.data.incidentId === query.excludeIncidentId) continue;
      if (incidentLikeKey(parsed.data.alertname, parsed.data.labels) !== key) continue;
      found.set(parsed.data.incidentId, parsed.data);
    }
    if (page.length < PAGE) break;
  }
  return [...found.values()].sort((a, b) => b.at - a.at).slice(0, Math.max(0, limit));
}

/** A UTC time as `YYYY-MM-DD HH:MM`. */
function utcMinute(at: number): string {
  return new Date(at).toISOString().slice(0, 16).replace("T", " ");
}

/**
 * Cuts masked text to `max` characters at a word boundary near the end, marking the cut; a
 * mask marker the cut would split ("[email masked]" holds a space) goes whole.
 */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const boundary = head.lastIndexOf(" ");
  let kept = boundary > max * 0.7 ? head.slice(0, boundary) : head;
  const open = kept.lastIndexOf("[");
  const tail = kept.slice(open);
  if (open > kept.lastIndexOf("]") && MASK_TOKENS.some((token) => token.startsWith(tail) && token !== tail))
    kept = kept.slice(0, open).trimEnd();
  return `${kept}…`;
}

/** Text masked, then put on one line and cut to `max` characters (mask first: a cut could leave half a secret no pattern knows). */
function oneLine(text: string, max: number): string {
  return cut(maskSensitive(text).replace(/\s+/g, " ").trim(), max);
}

/** The evidence and actions of a past incident, as indented lines (none when it kept none). */
function detailLines(conclusion: PastConclusion): string[] {
  const evidence = (conclusion.evidence ?? [])
    .slice(0, DETAILS_SHOWN)
    .map((read) => `${read.tool} [${read.callId}] showed ${oneLine(read.showed, DETAIL_CHARS)}`);
  const actions = (conclusion.actions ?? []).slice(0, DETAILS_SHOWN).map((action) => {
    const approved = action.approvedBy.length > 0 ? `, approved by ${action.approvedBy.join(" and ")}` : "";
    const outcome = `${action.ok ? "ok" : "failed"}: ${oneLine(action.outcome, DETAIL_CHARS)}`;
    return `${action.tool} [${action.callId}]${approved}, ${outcome}`;
  });
  return [
    ...(evidence.length > 0 ? [`  Evidence: ${evidence.join("; ")}`] : []),
    ...(actions.length > 0 ? [`  Done: ${actions.join("; ")}`] : []),
  ];
}

/**
 * One past incident as lines of the section: its time, link and how it ended; then its diagnosis,
 * indented; then, when kept, the evidence it cited and what was done.
 */
function entry(conclusion: PastConclusion): string {
  const ended = conclusion.stopReason === "final_answer" ? "" : ` (stopped: ${conclusion.stopReason})`;
  const text = oneLine(conclusion.conclusion, CONCLUSION_CHARS) || "(no conclusion)";
  return [
    `- ${utcMinute(conclusion.at)} UTC, ${maskSensitive(conclusion.link)}${ended}`,
    `  ${text}`,
    ...detailLines(conclusion),
  ].join("\n");
}

/**
 * The section a new incident's first message gets: "Past incidents like this one (newest
 * first):", then per conclusion a line with its time (UTC, `YYYY-MM-DD HH:MM`), link and how it
 * ended when not with an answer, and an indented line with its text, masked and cut to about
 * 600 characters. Empty when there are none.
 */
export function pastIncidentsText(conclusions: readonly PastConclusion[]): string {
  if (conclusions.length === 0) return "";
  return ["Past incidents like this one (newest first):", ...conclusions.map(entry)].join("\n");
}

/**
 * The conclusion an incident's thread has come to when one of its runs ended, linked on the page at
 * `publicUrl`: the diagnosis read from the thread's events (`diagnosisOf`; the run's own answer when
 * none answered), the evidence it cited and the writes that ran with who approved them. `isWrite`
 * tells writes from reads (the registry's `readOnly: false`).
 */
export function conclusionOf(
  report: IncidentAnswer,
  publicUrl: string,
  isWrite?: (tool: string) => boolean,
): PastConclusion {
  const diagnosis = diagnosisOf(report.events, isWrite);
  return {
    incidentId: report.incident.incidentId,
    alertname: report.incident.alertname,
    labels: report.incident.labels,
    threadId: report.threadId,
    link: threadLink(publicUrl, report.threadId),
    conclusion: diagnosis.answer || report.answer,
    evidence: diagnosis.evidence,
    actions: diagnosis.actions,
    stopReason: report.stopReason,
    at: report.at,
  };
}
