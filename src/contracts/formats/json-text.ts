/**
 * Where the longest slice of `text` from `start` ends whose body as a JSON string fits
 * `budget` characters, counting what escaping adds (quotes, backslashes, control
 * characters). The slice never ends inside a surrogate pair.
 */
export function jsonStringEnd(text: string, start: number, budget: number): number {
  let used = 0;
  let end = start;
  while (end < text.length) {
    const cost = escapedLength(text, end);
    if (used + cost > budget) break;
    used += cost;
    end += 1;
  }
  if (end > start && end < text.length && isSurrogatePair(text, end - 1)) end -= 1;
  return end;
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
