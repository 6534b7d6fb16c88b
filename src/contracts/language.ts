/** The language opspilot writes in for a user: Chinese or English. */
export type Language = "zh" | "en";

/** Chinese when the text has any Han character (CJK ideographs, extensions included), English otherwise. */
export function detectLanguage(text: string): Language {
  return /\p{Script=Han}/u.test(text) ? "zh" : "en";
}
