/** An alerting rule's expression split at its last top-level comparison with a number. */
export interface Comparison {
  /** What the rule measures (`rate(http_errors_total[1m])`). */
  measured: string;
  /** The comparison (`>`, `>=`, `==` ...). */
  operator: string;
  /** The number it is compared with, as written. */
  threshold: string;
}

const OPERATORS = [">=", "<=", "==", "!=", ">", "<"];
const NUMBER = /^(?:bool\s+)?([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)$/i;
const OPENING = "([{";
const CLOSING = ")]}";

/**
 * `rate(x[1m]) > 0.5` as what it measures and what it is compared with; undefined when the
 * expression has no comparison with a number outside brackets, braces and quotes (`=~` inside a
 * selector is no comparison).
 */
export function splitComparison(expression: string): Comparison | undefined {
  let depth = 0;
  let quote: string | undefined;
  let last: { index: number; operator: string } | undefined;
  for (let index = 0; index < expression.length; index += 1) {
    const character = expression[index]!;
    if (quote) {
      if (character === "\\") index += 1;
      else if (character === quote) quote = undefined;
      continue;
    }
    if (character === '"' || character === "'" || character === "`") quote = character;
    else if (OPENING.includes(character)) depth += 1;
    else if (CLOSING.includes(character)) depth -= 1;
    else if (depth === 0) {
      const operator = OPERATORS.find((candidate) => expression.startsWith(candidate, index));
      if (operator) {
        last = { index, operator };
        index += operator.length - 1;
      }
    }
  }
  if (!last) return undefined;
  const measured = expression.slice(0, last.index).trim();
  const threshold = NUMBER.exec(expression.slice(last.index + last.operator.length).trim())?.[1];
  return measured && threshold ? { measured, operator: last.operator, threshold } : undefined;
}

/** `up{job="api", instance="10.0.0.1:9100"}` for the labels that name a scrape target; undefined without them. */
export function targetUpQuery(labels: ReadonlyArray<readonly [string, string]>): string | undefined {
  const target = labels.filter(([name]) => name === "job" || name === "instance");
  if (target.length === 0) return undefined;
  return `up{${target.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(", ")}}`;
}
