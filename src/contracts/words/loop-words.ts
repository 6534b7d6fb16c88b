import type { Language } from "../language.js";
import { ENGLISH } from "./en.js";
import { CHINESE } from "./zh.js";
import type { LoopWords } from "./types.js";

export type { DurationUnit, LimitWords, LoopWords, ModelFailureWords, NextStep, PauseWords } from "./types.js";

const WORDS: Record<Language, LoopWords> = { en: ENGLISH, zh: CHINESE };

/** The loop's words in `language`. */
export function loopWords(language: Language): LoopWords {
  return WORDS[language];
}
