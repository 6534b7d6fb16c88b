/** Compact JSON of a value, cut to `max` characters with an ellipsis. */
export function compactJson(value: unknown, max = 240): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A duration as people read it: "42 ms", "1.3 s". */
export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

const SHELL_SAFE = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** Quotes a word for a POSIX shell so a printed command can be pasted as is. */
export function shellQuote(word: string): string {
  if (SHELL_SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Indents every line of a multi-line text. */
export function indent(text: string, prefix: string): string[] {
  return text.split("\n").map((line) => (line.length > 0 ? prefix + line : line));
}

/** What a run spent, for its closing line: "1,234 tokens · $0.0031"; the cost only when prices made it more than 0. */
export function formatSpend(tokens: number | undefined, costUsd: number | undefined): string | undefined {
  if (tokens === undefined) return undefined;
  const parts = [`${tokens.toLocaleString("en-US")} token${tokens === 1 ? "" : "s"}`];
  if (costUsd !== undefined && costUsd > 0) parts.push(formatUsd(costUsd));
  return parts.join(" · ");
}

/** Dollars with enough digits that a cheap run does not read as $0.00. */
export function formatUsd(costUsd: number): string {
  return `$${costUsd >= 1 ? costUsd.toFixed(2) : costUsd.toFixed(4)}`;
}
