/** How cl100k_base's split pattern sees an ASCII character. */
const LETTER = 1;
const DIGIT = 2;
/** Whitespace other than a line break: tab, vertical tab, form feed, space. */
const SPACE = 3;
/** `\r` or `\n`. */
const BREAK = 4;
/** Anything else: punctuation, symbols, control characters. */
const OTHER = 5;

const KINDS = new Uint8Array(128).fill(OTHER);
for (let code = 0x41; code <= 0x5a; code += 1) KINDS[code] = LETTER;
for (let code = 0x61; code <= 0x7a; code += 1) KINDS[code] = LETTER;
for (let code = 0x30; code <= 0x39; code += 1) KINDS[code] = DIGIT;
for (const code of [0x09, 0x0b, 0x0c, 0x20]) KINDS[code] = SPACE;
for (const code of [0x0a, 0x0d]) KINDS[code] = BREAK;

/** Whether every character of a text is ASCII, so that `cl100kPieceEnd` may cut it. */
export function isAscii(text: string): boolean {
  return Buffer.byteLength(text, "utf8") === text.length;
}

/**
 * Where the piece that starts at `start` ends, as cl100k_base's split pattern cuts an ASCII
 * text (`'s|…|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`):
 * its alternatives in order, written out, a few times faster than the Unicode regex.
 * test/unit/models/ascii-pieces.test.ts checks it against the regex.
 */
export function cl100kPieceEnd(text: string, start: number): number {
  const code = text.charCodeAt(start);
  if (code === 0x27) {
    const contraction = contractionLength(text, start);
    if (contraction > 0) return start + contraction;
  }
  const kind = kindAt(text, start);
  const next = kindAt(text, start + 1);
  if (kind === LETTER) return runEnd(text, start + 1, LETTER);
  // One character that is neither a line break, a letter nor a digit, then letters.
  if ((kind === SPACE || kind === OTHER) && next === LETTER) return runEnd(text, start + 2, LETTER);
  if (kind === DIGIT) return Math.min(runEnd(text, start + 1, DIGIT), start + 3);
  if (kind === OTHER || (code === 0x20 && next === OTHER)) return runEnd(text, runEnd(text, start + 1, OTHER), BREAK);
  // Whitespace: through its last line break; else, before a non-space, all of it but the last; else one.
  let end = start;
  let lastBreak = -1;
  for (; end < text.length; end += 1) {
    const here = kindAt(text, end);
    if (here === BREAK) lastBreak = end;
    else if (here !== SPACE) break;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (end === text.length) return end;
  return end - start >= 2 ? end - 1 : start + 1;
}

function kindAt(text: string, index: number): number {
  return index < text.length ? KINDS[text.charCodeAt(index)]! : 0;
}

/** Where the run of `kind` from `index` ends. */
function runEnd(text: string, index: number, kind: number): number {
  let end = index;
  while (end < text.length && KINDS[text.charCodeAt(end)] === kind) end += 1;
  return end;
}

/** The length of the contraction at `start` (`'s`, `'T`, `'re`, `'LL`…), or 0. */
function contractionLength(text: string, start: number): number {
  const first = text.charCodeAt(start + 1) | 0x20;
  if (first === 0x73 || first === 0x74 || first === 0x6d || first === 0x64) return 2; // s t m d
  const second = text.charCodeAt(start + 2) | 0x20;
  if ((first === 0x72 || first === 0x76) && second === 0x65) return 3; // re ve
  if (first === 0x6c && second === 0x6c) return 3; // ll
  return 0;
}
