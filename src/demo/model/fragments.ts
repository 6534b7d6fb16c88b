/** Han characters and CJK punctuation (fullwidth forms included). */
const CJK = "\\p{Script=Han}\\u3000-\\u303F\\uFF00-\\uFFEF";

/** Up to three CJK characters, a word with the spaces after it, or a run of spaces and line breaks. */
const FRAGMENT = new RegExp(`[${CJK}]{1,3}|[^\\s${CJK}]+[^\\S\\n]*|\\s+`, "gu");

/**
 * The demo model's text cut as a streaming model sends it: words (with their trailing
 * spaces) and a few Chinese characters at a time. Joined, the fragments are the text.
 */
export function textFragments(text: string): string[] {
  return text.match(FRAGMENT) ?? [];
}
