import type { Observation } from "../contracts/observation.js";
import { MASK_TOKENS, maskValue } from "./mask.js";

/** Masking lives in mask.ts; it is re-exported here, where callers look for sanitizing. */
export { maskSensitive, maskValue } from "./mask.js";

/** A ToolMessage's content and what was cut. */
export interface BoundedObservation {
  /** JSON text of the observation, masked and under the cap. */
  content: string;
  /** The observation as written (data replaced by a preview when cut). */
  observation: Observation;
  /** Whether anything was cut. */
  truncated: boolean;
}

/** Said in every cut observation; the whole result, masked, is served by call id. */
const CUT_NOTE = "Result cut to fit; the full result is stored under this call id.";

/**
 * Turns an observation into the text a ToolMessage carries: masked, then capped at
 * `maxChars` with a note of what was cut (design §2.7). Masking comes first because a cut
 * can split a secret into a piece no pattern recognises. The raw result is kept elsewhere.
 */
export function boundObservation(observation: Observation, maxChars: number): BoundedObservation {
  const masked = maskValue(observation) as Observation;
  const whole = JSON.stringify(masked);
  if (whole.length <= maxChars) return { content: whole, observation: masked, truncated: false };
  const text = masked.ok ? (JSON.stringify(masked.data) ?? "null") : masked.message;
  const envelope = (preview: string, keptChars: number): Observation =>
    masked.ok
      ? { ...masked, data: preview, truncated: { originalChars: text.length, keptChars } }
      : { ...masked, message: preview };
  // Measured with the widest keptChars, so the preview may use every remaining character.
  const overhead = JSON.stringify({ ...envelope("", text.length), note: CUT_NOTE }).length;
  const preview = cutText(text, Math.max(0, maxChars - overhead));
  const cut = envelope(preview, preview.length);
  return { content: JSON.stringify({ ...cut, note: CUT_NOTE }), observation: cut, truncated: true };
}

/**
 * The longest start of `text` whose JSON string body fits `budget` characters, counting
 * what escaping adds (quotes, backslashes, control characters). The cut never splits a
 * surrogate pair or a mask marker.
 */
function cutText(text: string, budget: number): string {
  let used = 0;
  let end = 0;
  while (end < text.length) {
    const cost = escapedLength(text, end);
    if (used + cost > budget) break;
    used += cost;
    end += 1;
  }
  if (end > 0 && end < text.length && isSurrogatePair(text, end - 1)) end -= 1;
  return text.slice(0, outsideMaskToken(text, end));
}

/** Characters JSON.stringify writes for the UTF-16 unit at `index`. */
function escapedLength(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code >= 0xd800 && code <= 0xdfff) return isSurrogatePair(text, index) || isSurrogatePair(text, index - 1) ? 1 : 6;
  return 1;
}

/** Whether the units at `index` and `index + 1` form one character. */
function isSurrogatePair(text: string, index: number): boolean {
  const high = text.charCodeAt(index);
  const low = text.charCodeAt(index + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/** Moves a cut that falls inside a mask marker back to the marker's start. */
function outsideMaskToken(text: string, end: number): number {
  const open = text.lastIndexOf("[", end - 1);
  if (open < 0) return end;
  const inside = MASK_TOKENS.some((token) => text.startsWith(token, open) && open + token.length > end);
  return inside ? open : end;
}
