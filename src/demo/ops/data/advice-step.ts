import type { AdviceStep } from "./types.js";

/** Shorthand for one bilingual runbook step. */
export function step(en: string, zh: string): AdviceStep {
  return { en, zh };
}
