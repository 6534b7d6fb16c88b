/** The language the loop writes its own messages in. */
export type Language = "zh" | "en";

/** Chinese when the text has CJK ideographs, English otherwise. */
export function detectLanguage(text: string): Language {
  return /[\u3400-\u9fff]/.test(text) ? "zh" : "en";
}
