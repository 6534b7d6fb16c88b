import type { TimelineEntry } from "./timeline-entry.js";

/** A call id as a Markdown link to where the page opens its result. */
export type CallLink = (callId: string) => string;

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
const callRef = (callId: string, link: CallLink) => `[${code(callId)}](${link(callId)})`;
const oneLine = (text: string) => text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();

/** What one timeline entry says, as one line of Markdown (a table cell), with its call linked. */
export function entryText(entry: TimelineEntry, link: CallLink): string {
  switch (entry.kind) {
    case "alert": {
      const times = [
        `starts ${entry.startsAt}`,
        ...(entry.endsAt ? [`ends ${entry.endsAt}`] : []),
        ...(entry.occurredAt ? [`occurred ${entry.occurredAt}`] : []),
      ];
      return `Alert ${entry.what} (${entry.source}, ${entry.alerts} firing; ${times.join(", ")})`;
    }
    case "run_started":
      return `${entry.resumed ? "Investigation resumed" : "Investigation started"}${entry.by ? ` as ${entry.by}` : ""}`;
    case "step":
      return `${code(entry.tool)} ${oneLine(entry.args)} ${entry.ok ? "found" : `failed (${entry.errorCode ?? "error"})`}: ${oneLine(entry.found)} ${callRef(entry.callId, link)}`;
    case "pause":
      return `Paused for a person: ${entry.calls.map((call) => code(call.tool)).join(", ")}`;
    case "answer":
      return `${entry.by}${entry.role ? ` (${entry.role})` : ""} answered ${code(entry.tool)}: ${entry.action}${entry.message ? ` ("${oneLine(entry.message)}")` : ""}`;
    case "action":
      return `Action ${code(entry.tool)} ${oneLine(entry.args)} ${entry.ok ? "done" : `not done (${entry.errorCode ?? "error"})`} after ${entry.decision.action} by ${(entry.decision.approvers ?? [entry.decision.by]).join(" and ")}: ${oneLine(entry.outcome)} ${callRef(entry.callId, link)}`;
    case "conclusion":
      return `Conclusion: ${oneLine(entry.text)}`;
    case "run_finished":
      return `Run ended: ${entry.stopReason}`;
    case "notice":
      return `Notice ${entry.event} via ${entry.channel}${entry.ok ? "" : ` not delivered (${entry.failure ?? "failed"})`}`;
    case "silenced":
      return `Alerts silenced (${entry.silenceIds.map(code).join(", ") || "silence unknown"})`;
    case "resolved":
      return `Resolved while silenced: Alertmanager no longer listed its alerts`;
    default: {
      const _exhaustive: never = entry;
      return String(_exhaustive);
    }
  }
}

/** A duration in words: `1h 2m 3s`, `45s`. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const parts = [
    [Math.floor(seconds / 3600), "h"],
    [Math.floor((seconds % 3600) / 60), "m"],
    [seconds % 60, "s"],
  ] as const;
  const shown = parts.filter(([value]) => value > 0).map(([value, unit]) => `${value}${unit}`);
  return shown.length > 0 ? shown.join(" ") : "0s";
}
