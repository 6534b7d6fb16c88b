import type { Observation } from "../contracts/observation.js";

const MASKS: Array<[RegExp, string]> = [
  // Private keys and bearer/API tokens before the generic patterns, so they are masked whole.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, "[private key masked]"],
  [/\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,4096}=*/gi, "$1 [token masked]"],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g, "[key masked]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "[key masked]"],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, "[token masked]"],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, "[token masked]"],
  [/((?:api[_-]?key|secret|password|passwd|token|access[_-]?key)\\?"?\s*[:=]\s*\\?"?)[^\s"\\,;}]{4,}/gi, "$1[masked]"],
  [/[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}/g, "[email masked]"],
  // Chinese resident ID: 6-digit region, birth date, 3 digits and a check digit or X.
  [
    /(?<![0-9])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9])/g,
    "[id number masked]",
  ],
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
  const whole = JSON.stringify(observation);
  if (whole.length <= maxChars) {
    const masked = parseOr(maskSensitive(whole), observation);
    const content = JSON.stringify(masked);
    if (content.length <= maxChars) return { content, observation: masked, truncated: false };
  }
  // Cut before masking: masking scans the text, and only what is kept needs it.
  const note = "Result cut to fit; the full result is stored under this call id.";
  const budget = Math.max(0, maxChars - 300);
  const dataText = observation.ok ? (JSON.stringify(observation.data) ?? "null") : observation.message;
  const preview = maskSensitive(dataText.slice(0, budget)).slice(0, budget);
  const cut: Observation = observation.ok
    ? { ok: true, data: preview, truncated: { originalChars: dataText.length, keptChars: preview.length } }
    : { ok: false, errorCode: observation.errorCode, message: preview };
  return { content: JSON.stringify({ ...cut, note }), observation: cut, truncated: true };
}

function parseOr(text: string, fallback: Observation): Observation {
  try {
    return JSON.parse(text) as Observation;
  } catch {
    return fallback.ok ? { ok: true, data: text } : fallback;
  }
}
