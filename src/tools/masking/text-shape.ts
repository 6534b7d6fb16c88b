/**
 * What one pass over a text tells the masking rules (mask.ts): which of the characters they
 * spell out it holds, one bit each, and whether it has the digit and base64 runs the number
 * and key patterns need. A rule whose bits a text lacks cannot match in it.
 */

/** The text holds `@`. */
export const AT = 1 << 0;
/** `_`. */
export const UNDERSCORE = 1 << 1;
/** `+`. */
export const PLUS = 1 << 2;
/** `:`. */
export const COLON = 1 << 3;
/** `:` or `=`, what a key-value pair is written with. */
export const ASSIGN = 1 << 4;
/** `-`. */
export const DASH = 1 << 5;
/** `.`. */
export const DOT = 1 << 6;
/** `b` or `B`. */
export const LETTER_B = 1 << 7;
/** `I`. */
export const CAPITAL_I = 1 << 8;
/** `J`. */
export const CAPITAL_J = 1 << 9;
/** A run of base64 characters exactly 40 long, as long as it goes. */
export const RUN_40 = 1 << 10;
/** 17 digits in a row. */
export const DIGITS_17 = 1 << 11;
/** 11 digits, each at most one `-` or space from the next. */
export const DIGITS_11_SPACED = 1 << 12;

/** Not rule bits: what kind of character a code is, for the runs `shapeOf` follows. */
const BASE64_CHARACTER = 1 << 13;
const DIGIT = 1 << 14;
const DIGIT_SEPARATOR = 1 << 15;

/** Per ASCII code: the rule bits it sets and its kind. */
const CHARACTER_BITS = new Uint16Array(128);
for (const [characters, bit] of [
  ["@", AT],
  ["_", UNDERSCORE],
  ["+", PLUS | BASE64_CHARACTER],
  [":", COLON | ASSIGN],
  ["=", ASSIGN],
  ["-", DASH | DIGIT_SEPARATOR],
  [" ", DIGIT_SEPARATOR],
  [".", DOT],
  ["bB", LETTER_B],
  ["I", CAPITAL_I],
  ["J", CAPITAL_J],
  ["/ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", BASE64_CHARACTER],
  ["0123456789", BASE64_CHARACTER | DIGIT],
] as const)
  for (const character of characters) CHARACTER_BITS[character.charCodeAt(0)]! |= bit;

/** The bits of the characters a text holds, with its base64 and digit runs, in one pass. */
export function shapeOf(text: string): number {
  let bits = 0;
  let run = 0;
  let digits = 0;
  let spaced = 0;
  // What the previous character was: a digit (1), a `-` or space right after a digit (2), anything else (0).
  let after = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const kind = code < 128 ? CHARACTER_BITS[code]! : 0;
    bits |= kind;
    if ((kind & BASE64_CHARACTER) === 0) {
      if (run === 40) bits |= RUN_40;
      run = 0;
      digits = 0;
      after = after === 1 && (kind & DIGIT_SEPARATOR) !== 0 ? 2 : 0;
      continue;
    }
    run += 1;
    if ((kind & DIGIT) === 0) {
      digits = 0;
      after = 0;
      continue;
    }
    digits += 1;
    if (digits >= 17) bits |= DIGITS_17;
    spaced = after === 0 ? 1 : spaced + 1;
    if (spaced >= 11) bits |= DIGITS_11_SPACED;
    after = 1;
  }
  if (run === 40) bits |= RUN_40;
  return bits;
}
