import { MAX_MESSAGE_CHARS } from "../../contracts/limits.js";
import type { RunbookFile } from "../../tools/runbooks/types.js";
import type { AlertLogCall } from "../../tools/toolsets/alert-log-queries.js";

/** Characters of one runbook put in the first message; the model reads the rest with `search_docs`. */
const RUNBOOK_CHARS = 2_500;

/** Most runbooks put in the first message when several list the alert. */
const RUNBOOKS_PER_ALERT = 2;

/** What goes in front of an investigation besides the alert: extra sections of its first message. */
export type IncidentBriefing = (incident: {
  incidentId: string;
  alertname: string;
  labels: Record<string, string>;
  /** When the alert started (ISO), when the source says. */
  startsAt?: string;
}) => Promise<string[]> | string[];

/** Cuts text to `max` characters at a line or word boundary near the end, marking the cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const boundary = Math.max(head.lastIndexOf("\n"), head.lastIndexOf(" "));
  return `${boundary > max * 0.7 ? head.slice(0, boundary) : head}…`;
}

/** A runbook whose front matter lists the alert, as a section of the first message. */
export function runbookSection(file: RunbookFile): string {
  const text = file.sections
    // The text before the first heading has the runbook's title as its heading: not repeated.
    .map((section) => (section.id === file.path ? "" : `## ${section.heading}\n`) + section.text)
    .join("\n\n")
    .trim();
  return `Runbook "${file.title}" (${file.path}) lists this alert:\n${cut(text, RUNBOOK_CHARS)}`;
}

/** The runbooks listing an alert, as first-message sections (at most two). */
export function runbookSections(files: readonly RunbookFile[]): string[] {
  return files.slice(0, RUNBOOKS_PER_ALERT).map(runbookSection);
}

/**
 * The log reads the alert's labels give (`toolsets.<log backend>.alertQuery`), as a first-message
 * section the model can run as written; none without a log toolset or labels that fill a query.
 */
export function logQuerySections(calls: readonly AlertLogCall[]): string[] {
  if (calls.length === 0) return [];
  const lines = calls.map((call) => `- ${call.tool} ${JSON.stringify(call.args)}`);
  return [`Logs: start with the log query configured for this alert's labels:\n${lines.join("\n")}`];
}

/**
 * The investigation's first message: the alert, then the briefing's sections, within the message
 * limit. The alert keeps its own text; sections that do not fit are cut, the last ones first.
 */
export function firstMessage(alert: string, sections: readonly string[]): string {
  let text = alert;
  for (const section of sections) {
    const room = MAX_MESSAGE_CHARS - text.length - 2;
    if (room < 200) break;
    text += `\n\n${cut(section, room)}`;
  }
  return text;
}
