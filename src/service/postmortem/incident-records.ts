import type { Storage } from "../../storage/types.js";
import type { IncidentRecords } from "./timeline.js";

/** What the timeline and the postmortem read. */
export type RecordsStorage = Pick<Storage, "incidents" | "incidentLog" | "threadRecords" | "getResult">;

/** One tool result a claim may rest on: the call, and the text of what it returned (masked, as stored). */
export interface Evidence {
  callId: string;
  tool: string;
  /** The result's summary, then the whole stored result as JSON. */
  text: string;
}

/** Everything recorded about an incident, or undefined when there is no such incident. */
export async function readIncidentRecords(
  storage: RecordsStorage,
  incidentId: string,
): Promise<IncidentRecords | undefined> {
  const incident = await storage.incidents.getIncident(incidentId);
  if (!incident) return undefined;
  const [log, events, records] = await Promise.all([
    storage.incidentLog.incidentLog(incidentId),
    storage.incidentLog.timedEvents(incident.threadId),
    storage.threadRecords(incident.threadId),
  ]);
  return { incident, log, events, runs: records.runs, toolCalls: records.toolCalls, decisions: records.decisions };
}

/** The tool results of the incident's thread that succeeded, in order, each with its stored result. */
export async function readEvidence(storage: RecordsStorage, records: IncidentRecords): Promise<Evidence[]> {
  const threadId = records.incident.threadId;
  const results = records.events.flatMap(({ event }) => (event.type === "tool_result" && event.ok ? [event] : []));
  return Promise.all(
    results.map(async (result) => {
      const stored = await storage.getResult(threadId, result.callId);
      const raw = stored === undefined ? "" : `\n${JSON.stringify(stored.raw)}`;
      return { callId: result.callId, tool: result.tool, text: `${result.summary}${raw}` };
    }),
  );
}

/** The whole final answer of each run that ended with one (the timeline quotes them cut), oldest first. */
export function conclusions(records: IncidentRecords): Array<{ runId: string; text: string }> {
  const found: Array<{ runId: string; text: string }> = [];
  const last = new Map<string, string>();
  for (const { event } of records.events) {
    if (event.type === "assistant_message") last.set(event.runId, event.content);
    if (event.type === "run_finished" && event.stopReason !== "interrupted" && last.has(event.runId))
      found.push({ runId: event.runId, text: last.get(event.runId)! });
  }
  return found;
}
