/** Error codes, ticket and runbook ids, deploy ids: `PAY-5031`, `RB-003`, `INC-20931`. */
const CODE_PATTERN = /\b[A-Z][A-Z0-9_]{1,14}-\d{2,8}\b/g;

/**
 * The distinct code-like ids in a text, most frequent first, at most `limit`: what a tool's
 * `summarize` (and the default for tools without one) keeps as facts of a long result.
 */
export function codesIn(text: string, limit = 6): string[] {
  const counts = new Map<string, number>();
  // The matched texts alone: a long result holds hundreds of codes, and match objects cost more than the scan.
  for (const code of text.match(CODE_PATTERN) ?? []) counts.set(code, (counts.get(code) ?? 0) + 1);
  return [...counts]
    .sort((left, right) => right[1] - left[1])
    .slice(0, limit)
    .map(([code]) => code);
}

/** The text, cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
