import type { RunEvent } from "../../contracts/events.js";
import type { IncidentSilence } from "../../storage/incidents/incident-store.js";

/** The tool whose success on an incident's thread silences the incident's alerts (design §11). */
export const CREATE_SILENCE_TOOL = "alertmanager_create_silence";

/** The silence id a result's summary starts with (the summary is the start of the result's JSON). */
const SILENCE_ID = /"silenceId":"([^"]+)"/;

/**
 * The silence a tool result made: a successful `alertmanager_create_silence`, with its id when the
 * summary shows it; undefined for any other result. The reconciliation job checks it against
 * Alertmanager: a silence that does not hold the incident's alerts is cleared there.
 */
export function silenceOf(event: Extract<RunEvent, { type: "tool_result" }>, at: number): IncidentSilence | undefined {
  if (!event.ok || event.tool !== CREATE_SILENCE_TOOL) return undefined;
  const id = SILENCE_ID.exec(event.summary)?.[1];
  return { at, silenceIds: id ? [id] : [] };
}
