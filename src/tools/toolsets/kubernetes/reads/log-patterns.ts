/** Lines that differ only in numbers, hex ids or quoted values, counted once with an example. */
export interface LogPattern {
  pattern: string;
  count: number;
  example: string;
}

/** The shape of a line: numbers, hex ids and quoted strings replaced by placeholders. */
export function patternOf(line: string): string {
  return line
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b[0-9a-f]{8,}\b/gi, "<id>")
    .replace(/\d+(\.\d+)?/g, "<n>")
    .slice(0, 200);
}

/**
 * Groups lines by pattern, most frequent first, keeping each pattern's last line as its
 * example. The lines must be masked already: a secret folded into a pattern (`sk-ab<n>cd`)
 * is a shape the masker no longer recognises.
 */
export function groupLines(lines: readonly string[]): LogPattern[] {
  const groups = new Map<string, LogPattern>();
  for (const line of lines) {
    const pattern = patternOf(line);
    const group = groups.get(pattern);
    if (group) {
      group.count += 1;
      group.example = line.slice(0, 500);
    } else groups.set(pattern, { pattern, count: 1, example: line.slice(0, 500) });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}
