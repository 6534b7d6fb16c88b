/**
 * Text segmentation for the ops search tables. FTS5's tokenizers do not split Chinese, so
 * text is pre-segmented here and stored as space-separated tokens: Latin words lowercased
 * (a compound like `PAY-5031` also yields `pay5031`), Chinese as Intl.Segmenter words plus
 * every character bigram and unigram, so a two-character query like 支付 matches 支付服务.
 */

const HAN_SPLIT = /(\p{Script=Han}+)/u;
const LATIN_WORD = /[\p{L}\p{N}]+(?:[-_.][\p{L}\p{N}]+)*/gu;
const SEGMENTER = new Intl.Segmenter("zh", { granularity: "word" });

/** Words that carry no meaning in a query ("show me the ...", "看看 ... 一下"). */
const STOPWORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "can",
  "check",
  "do",
  "for",
  "from",
  "how",
  "i",
  "in",
  "is",
  "it",
  "me",
  "my",
  "of",
  "on",
  "or",
  "please",
  "show",
  "the",
  "to",
  "what",
  "which",
  "with",
  "的",
  "了",
  "吗",
  "呢",
  "吧",
  "和",
  "与",
  "在",
  "是",
  "我",
  "请",
  "帮",
  "看",
  "看看",
  "一下",
  "顺便",
]);

/** Which way a text is going: documents index unigrams, queries only use them for one-character words. */
export type SegmentMode = "index" | "query";

/** Splits a Latin compound (`DB_POOL_EXHAUSTED`) into its joined form and its parts. */
function latinTokens(word: string): string[] {
  const lower = word.toLowerCase();
  const parts = lower.split(/[-_.]/).filter((part) => part.length > 0);
  return parts.length > 1 ? [parts.join(""), ...parts] : parts;
}

/** Segments one run of Han characters into words, bigrams and (when asked) unigrams. */
function hanTokens(run: string, mode: SegmentMode): string[] {
  const characters = [...run];
  if (characters.length === 1) return characters;
  const tokens: string[] = [];
  for (const segment of SEGMENTER.segment(run)) {
    if ([...segment.segment].length > 2) tokens.push(segment.segment);
  }
  for (let index = 0; index + 1 < characters.length; index++) {
    tokens.push(characters[index] + characters[index + 1]);
  }
  if (mode === "index") tokens.push(...characters);
  return tokens;
}

/** Tokens of a text, in order, duplicates kept (term frequency matters to bm25). */
export function segmentText(text: string, mode: SegmentMode = "index"): string[] {
  // Splitting on a capturing group puts the Han runs at the odd indexes.
  return text
    .split(HAN_SPLIT)
    .flatMap((chunk, index) =>
      index % 2 === 1
        ? hanTokens(chunk, mode)
        : [...chunk.matchAll(LATIN_WORD)].flatMap((match) => latinTokens(match[0])),
    );
}

/** A text as FTS5 column content: its tokens joined by spaces. */
export function toIndexText(...texts: ReadonlyArray<string | readonly string[]>): string {
  return texts
    .flat()
    .map((text) => segmentText(text, "index").join(" "))
    .join(" ");
}

/** Distinct meaningful tokens of a query, stopwords dropped. */
export function queryTokens(query: string): string[] {
  return [...new Set(segmentText(query, "query"))].filter((token) => !STOPWORDS.has(token));
}

/**
 * An FTS5 MATCH expression for the tokens: every token quoted (so words like `or` or `near`
 * stay words), joined by `AND` or `OR`. Null when nothing searchable is left.
 */
export function toMatchExpression(tokens: readonly string[], join: "AND" | "OR"): string | null {
  if (tokens.length === 0) return null;
  return tokens.map((token) => `"${token.replaceAll('"', '""')}"`).join(` ${join} `);
}
