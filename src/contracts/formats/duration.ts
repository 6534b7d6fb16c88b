import type { Language } from "../language.js";
import { loopWords, type DurationUnit } from "../words/loop-words.js";

/** Units a duration may be written in, with their length in ms. */
const UNITS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** How a duration is written: a whole number and one unit, e.g. `5s`, `30m`, `2h`, `1d`. */
export const DURATION_PATTERN = /^([1-9][0-9]{0,6})([smhd])$/;

/** The longest duration accepted: a year, so a deadline always fits a date. */
export const MAX_DURATION_MS = 365 * UNITS.d;

/** What a bad duration is told: the accepted forms. */
export const DURATION_HINT =
  'must be a whole number and a unit, s, m, h or d (e.g. "5s", "30m", "2h", "1d"), at most 365d';

/**
 * The length in ms of a duration written like `5s`, `30m`, `2h` or `1d`; undefined for
 * anything else (no spaces, decimals, zero, or more than `MAX_DURATION_MS`).
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * UNITS[match[2] as keyof typeof UNITS];
  return ms <= MAX_DURATION_MS ? ms : undefined;
}

/** The units, largest first. */
const LARGEST_FIRST: readonly DurationUnit[] = ["d", "h", "m", "s"];

/** A duration in words, in the largest unit that divides it (`30 minutes`, `30 分钟`); under a second counts as 1 second. */
export function durationWords(ms: number, language: Language): string {
  const whole = Math.max(UNITS.s, Math.round(ms / UNITS.s) * UNITS.s);
  const unit = LARGEST_FIRST.find((candidate) => whole % UNITS[candidate] === 0)!;
  return loopWords(language).duration(whole / UNITS[unit], unit);
}
