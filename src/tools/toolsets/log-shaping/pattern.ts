/** What a varying part of a line becomes in its pattern, in the order they are replaced. */
const VARYING: ReadonlyArray<[RegExp, string]> = [
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<time>"],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>"],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, "<ip>"],
  [/\b0x[0-9a-f]+\b/gi, "<hex>"],
  [/(?<![A-Za-z0-9_.-])\d+(?:\.\d+)*(?:ms|us|µs|ns|s|m|h|d|kb|mb|gb|b|%)?(?![A-Za-z0-9_-])/gi, "<n>"],
  // Ids that mix letters and digits: pod names, order ids, hashes.
  [/(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*\d)(?=[A-Za-z0-9_.-]*[A-Za-z])[A-Za-z0-9_.-]{6,}(?![A-Za-z0-9_-])/g, "<id>"],
];

/** Most characters of a pattern; the rest of a very long line does not tell one shape from another. */
export const PATTERN_CHARS = 200;

/**
 * The shape of a (masked) line that its repeats share: times, ids, addresses and numbers replaced
 * by `<time>`, `<uuid>`, `<ip>`, `<hex>`, `<n>`, `<id>`, spaces collapsed, cut at PATTERN_CHARS.
 */
export function patternOf(line: string): string {
  let shape = line.length > PATTERN_CHARS * 2 ? line.slice(0, PATTERN_CHARS * 2) : line;
  for (const [varying, placeholder] of VARYING) shape = shape.replace(varying, placeholder);
  shape = shape.replace(/\s+/g, " ").trim();
  return shape.length <= PATTERN_CHARS ? shape : `${shape.slice(0, PATTERN_CHARS - 1)}…`;
}
