// Facts a text names, and which of them no observation holds: the core of the eval's fabrication
// check and of the postmortem draft's.

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

/** One fact a text names that no known text holds. */
export interface UnobservedFact {
  /** The pattern's name (`error code`, `number`, …). */
  kind: string;
  fact: string;
}

/** Numbers written on their own (`9`, `12.5`, the `19` and `36` of `19:36`); digits inside a name are the name's. */
const NUMBER = /(?<![\w.-])\d+(?:\.\d+)?(?![\w]|\.\d)/gu;

/** Numbers a known text holds: any run of digits, inside a time (`T19:36`) or a name too; never part of a longer number. */
const KNOWN_NUMBER = /(?<![\d.])\d+(?:\.\d+)?(?![\d]|\.\d)/gu;

/** A number as compared: `09` and `9`, `2.50` and `2.5` are one number. */
function numberKey(text: string): string {
  return String(Number(text));
}

/**
 * The fabrication check's core: each distinct id or code `text` names (by `patterns`) that no
 * `known` text contains, then, with `numbers`, each number that no known text writes as a number.
 * `allow` lists facts never reported.
 */
export function unobservedFacts(
  text: string,
  known: string,
  options: { patterns?: Readonly<Record<string, string>>; numbers?: boolean; allow?: readonly string[] } = {},
): UnobservedFact[] {
  const allowed = new Set(options.allow ?? []);
  const found: UnobservedFact[] = [];
  for (const [kind, source] of Object.entries(options.patterns ?? DEFAULT_FACT_PATTERNS)) {
    const facts = new Set([...text.matchAll(new RegExp(source, "gu"))].map((match) => match[0]));
    for (const fact of facts) if (!allowed.has(fact) && !known.includes(fact)) found.push({ kind, fact });
  }
  if (options.numbers) {
    const knownNumbers = new Set((known.match(KNOWN_NUMBER) ?? []).map(numberKey));
    const numbers = new Set(text.match(NUMBER) ?? []);
    for (const fact of numbers)
      if (!allowed.has(fact) && !knownNumbers.has(numberKey(fact))) found.push({ kind: "number", fact });
  }
  return found;
}
