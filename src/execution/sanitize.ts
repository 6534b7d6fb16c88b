import type { Observation } from "../contracts/observation.js";
import { jsonStringEnd as jsonTextEnd } from "../contracts/formats/json-text.js";
import { MASK_TOKENS, maskValue } from "../tools/masking/mask.js";

/** Masking lives in mask.ts; it is re-exported here, where callers look for sanitizing. */
export { maskSensitive, maskValue } from "../tools/masking/mask.js";

/** A ToolMessage's content and what was cut. */
export interface BoundedObservation {
  /** JSON text of the observation, masked and under the cap. */
  content: string;
  /** The observation as written (data replaced by a preview when cut). */
  observation: Observation;
  /** Whether anything was cut. */
  truncated: boolean;
}

/** Stands in for an observation's data while its envelope is written; `data` is the envelope's first text field. */
const DATA_SLOT = "\u0000data\u0000";
const DATA_SLOT_JSON = JSON.stringify(DATA_SLOT);

/** Said in a cut observation whose call id is not known; the whole result, masked, is served by call id. */
const CUT_NOTE = "Result cut to fit; the full result is stored under this call id.";

/** Said in a cut result: how the model reads on from where the preview ends (design §2.7). */
export function readRestNote(callId: string, offset: number): string {
  return `Result cut to fit. Call read_result with {"callId":${JSON.stringify(callId)},"offset":${offset}} to read the rest.`;
}

/**
 * Turns an observation into the text a ToolMessage carries: masked, then capped at
 * `maxChars` with a note of what was cut (design §2.7). Masking comes first because a cut
 * can split a secret into a piece no pattern recognises. The raw result is kept elsewhere:
 * with the call's id, the note of a cut result says how to page it with `read_result`, from
 * the character where the preview (a start of the result's JSON text) ends.
 */
export function boundObservation(
  observation: Observation,
  maxChars: number,
  callId?: string,
  /** Whether the observation's `data` is masked already (the executor masks each result once). */
  dataMasked = false,
  /** `JSON.stringify` of that masked `data`, when the caller has written it already. */
  dataJson?: string,
): BoundedObservation {
  const premasked = dataMasked && observation.ok;
  const masked = (
    premasked
      ? { ...(maskValue({ ...observation, data: null }) as Observation), data: observation.data }
      : maskValue(observation)
  ) as Observation;
  // A result's JSON text is written once: the envelope is written around it, and a cut slices it.
  const dataText = masked.ok ? ((premasked ? dataJson : undefined) ?? JSON.stringify(masked.data)) : undefined;
  if (dataText === undefined) {
    const whole = JSON.stringify(masked);
    if (whole.length <= maxChars) return { content: whole, observation: masked, truncated: false };
  } else {
    const around = JSON.stringify({ ...masked, data: DATA_SLOT });
    // Measured before it is written: a result that is cut is never copied whole into its envelope.
    if (around.length - DATA_SLOT_JSON.length + dataText.length <= maxChars)
      return {
        content: around.replace(DATA_SLOT_JSON, () => dataText),
        observation: masked,
        truncated: false,
      };
  }
  const text = masked.ok ? (dataText ?? "null") : masked.message;
  const note = (keptChars: number) => (masked.ok && callId !== undefined ? readRestNote(callId, keptChars) : CUT_NOTE);
  const envelope = (preview: string, keptChars: number): Observation =>
    masked.ok
      ? { ...masked, data: preview, truncated: { originalChars: text.length, keptChars } }
      : { ...masked, message: preview };
  // Measured with the widest keptChars, so the preview may use every remaining character.
  const overhead = JSON.stringify({ ...envelope("", text.length), note: note(text.length) }).length;
  const preview = text.slice(0, jsonStringEnd(text, 0, Math.max(0, maxChars - overhead)));
  const cut = envelope(preview, preview.length);
  return { content: JSON.stringify({ ...cut, note: note(preview.length) }), observation: cut, truncated: true };
}

/**
 * Where the longest slice of `text` from `start` ends whose JSON string body fits `budget`
 * characters, escapes counted; the cut never splits a surrogate pair or a mask marker.
 */
export function jsonStringEnd(text: string, start: number, budget: number): number {
  return Math.max(start, outsideMaskToken(text, jsonTextEnd(text, start, budget)));
}

/** Moves a cut that falls inside a mask marker back to the marker's start. */
function outsideMaskToken(text: string, end: number): number {
  const open = text.lastIndexOf("[", end - 1);
  if (open < 0) return end;
  const inside = MASK_TOKENS.some((token) => text.startsWith(token, open) && open + token.length > end);
  return inside ? open : end;
}
