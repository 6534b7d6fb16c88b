/**
 * How the demo dataset spells the ids and codes an answer may cite; an answer that names one
 * no observation contained made it up. Each pattern is global, over the answer's text.
 */
export const DEFAULT_FACT_PATTERNS: Readonly<Record<string, string>> = {
  /** Error codes: PAY-5031, GW-504, DB_POOL_EXHAUSTED, INV-LOCK_TIMEOUT, RISK-TIMEOUT. */
  "error code": "\\b[A-Z][A-Z0-9]{1,11}(?:[-_][A-Z0-9]+)+\\b",
  /** Runbook ids: RB-003. */
  "runbook id": "\\bRB-\\d{3}\\b",
  /** Service ids: payment-service, api-gateway. */
  "service id": "\\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:service|gateway)\\b",
  /** Release versions, which identify deployments: 3.8.2, 3.9.0-rc.1. */
  "release version": "\\bv?\\d+\\.\\d+\\.\\d+(?:-[a-z]+(?:\\.\\d+)*)?\\b",
};

/** A fact written so that it only matches whole: `24` is not found in `2024`, nor `RB-003` in `RB-0031`. */
export function factPattern(fact: string): RegExp {
  const escaped = fact.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![A-Za-z0-9_-])${escaped}(?![A-Za-z0-9_]|-[A-Za-z0-9])`, "u");
}
