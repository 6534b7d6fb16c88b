import type { Observation } from "./observation.js";

const MASKS: Array<[RegExp, string]> = [
  // Private keys and bearer/API tokens before the generic patterns, so they are masked whole.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, "[private key masked]"],
  [/\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi, "$1 [token masked]"],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g, "[key masked]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "[key masked]"],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, "[token masked]"],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, "[token masked]"],
  [/((?:api[_-]?key|secret|password|passwd|token|access[_-]?key)\\?"?\s*[:=]\s*\\?"?)[^\s"\\,;}]{4,}/gi, "$1[masked]"],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, "[email masked]"],
  // Chinese resident ID: 6-digit region, birth date, 3 digits and a check digit or X.
  [/(?<![0-9])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9])/g, "[id number masked]"],
  [/(?<![0-9])(?:\+?86[- ]?)?1[3-9]\d[- ]?\d{4}[- ]?\d{4}(?![0-9])/g, "[phone masked]"],
  [/(?<![\w])\+\d{1,3}[- ]?\(?\d{2,4}\)?[- ]?\d{3,4}[- ]?\d{3,4}(?![0-9])/g, "[phone masked]"],
];

/** Masks secrets, emails, phone numbers and ID numbers in a text. */
export function maskSensitive(text: string): string {
  return MASKS.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text);
}

/** A ToolMessage's content and what was cut. */
export interface BoundedObservation {
  /** JSON text of the observation, masked and under the cap. */
  content: string;
  /** The observation as written (data replaced by a preview when cut). */
  observation: Observation;
  /** Whether anything was cut. */
  truncated: boolean;
}

/**
 * Turns an observation into the text a ToolMessage carries: masked, and capped at
 * `maxChars` with a note of what was cut (design §2.7). The raw result is kept elsewhere.
 */
export function boundObservation(observation: Observation, maxChars: number): BoundedObservation {
  const masked = JSON.parse(maskSensitive(JSON.stringify(observation))) as Observation;
  const content = JSON.stringify(masked);
  if (content.length <= maxChars) return { content, observation: masked, truncated: false };
  const note = "Result cut to fit; the full result is stored under this call id.";
  const budget = Math.max(0, maxChars - 300);
  const dataText = masked.ok ? JSON.stringify(masked.data) : masked.message;
  const preview = dataText.slice(0, budget);
  const cut: Observation = masked.ok
    ? { ok: true, data: preview, truncated: { originalChars: dataText.length, keptChars: preview.length } }
    : { ok: false, errorCode: masked.errorCode, message: preview };
  return { content: JSON.stringify({ ...cut, note }), observation: cut, truncated: true };
}
