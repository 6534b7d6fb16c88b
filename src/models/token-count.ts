import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { cl100kPieceEnd, isAscii } from "./ascii-pieces.js";

/** The BPE encodings bundled with js-tiktoken that opspilot counts with (no download, ever). */
export type Encoding = "o200k_base" | "cl100k_base";

/** Counts the tokens of a text in one encoding. */
export interface TextTokenCounter {
  /** The encoding counted with. */
  readonly encoding: Encoding;
  /** Tokens of `text`. Loads the encoding's ranks on first use (about 0.3 s for cl100k, 0.6 s for o200k). */
  count(text: string): number;
}

/** Pieces longer than this are counted in slices: js-tiktoken's merge is quadratic in a piece's length. */
const LONG_PIECE = 48;
/** Distinct pieces remembered per encoding; logs and JSON repeat the same words over and over. */
const PIECES_KEPT = 100_000;

const require = createRequire(import.meta.url);
const counters = new Map<Encoding, TextTokenCounter>();

/** The shared counter of an encoding; the ranks load lazily, on the first text counted. */
export function tokenCounter(encoding: Encoding): TextTokenCounter {
  let counter = counters.get(encoding);
  if (!counter) {
    counter = createCounter(encoding);
    counters.set(encoding, counter);
  }
  return counter;
}

function createCounter(encoding: Encoding): TextTokenCounter {
  let loaded: { tiktoken: Tiktoken; pattern: RegExp } | undefined;
  const pieces = new Map<string, number>();
  const load = () => {
    // The CommonJS build of the ranks loads synchronously, so counting stays a plain function.
    const ranks = require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE;
    return { tiktoken: new Tiktoken(ranks), pattern: new RegExp(ranks.pat_str, "gu") };
  };
  const countPiece = (tiktoken: Tiktoken, piece: string): number => {
    let tokens = pieces.get(piece);
    if (tokens === undefined) {
      // Special-token text ("<|endoftext|>") is counted as plain text, never refused.
      tokens = tiktoken.encode(piece, [], []).length;
      if (pieces.size >= PIECES_KEPT) pieces.clear();
      pieces.set(piece, tokens);
    }
    return tokens;
  };
  const countOf = (tiktoken: Tiktoken, piece: string): number => {
    if (isOneToken(piece)) return 1;
    if (piece.length <= LONG_PIECE) return countPiece(tiktoken, piece);
    // A long unbroken run (a hash, base64, CJK without punctuation): in slices, which count a few tokens more, not fewer.
    let total = 0;
    for (let start = 0; start < piece.length;) {
      let end = Math.min(piece.length, start + LONG_PIECE / 2);
      if (isHighSurrogate(piece.charCodeAt(end - 1)) && end < piece.length) end += 1;
      total += countPiece(tiktoken, piece.slice(start, end));
      start = end;
    }
    return total;
  };
  return {
    encoding,
    count(text: string): number {
      if (text.length === 0) return 0;
      loaded ??= load();
      const { tiktoken, pattern } = loaded;
      let total = 0;
      if (encoding === "cl100k_base" && isAscii(text)) {
        // Cut without the Unicode regex: most results and requests are ASCII JSON.
        for (let start = 0, end = 0; start < text.length; start = end) {
          end = cl100kPieceEnd(text, start);
          total += end - start === 1 ? 1 : countOf(tiktoken, text.slice(start, end));
        }
        return total;
      }
      // The pieces' texts alone: match objects would cost more than the counting.
      for (const piece of text.match(pattern) ?? []) total += countOf(tiktoken, piece);
      return total;
    },
  };
}

/**
 * Pieces both encodings hold as one token, known without a lookup: one ASCII character (every
 * byte is a token of a byte-level BPE) and every number of up to three ASCII digits, leading
 * zeros included (test/unit/models/context-budget.test.ts checks all 1,110 of them).
 */
function isOneToken(piece: string): boolean {
  if (piece.length === 1) return piece.charCodeAt(0) < 0x80;
  if (piece.length > 3) return false;
  for (let index = 0; index < piece.length; index += 1) {
    const code = piece.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** UTF-8 bytes of a text: no tokenizer, byte-level or with byte fallback, makes more tokens than bytes. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
