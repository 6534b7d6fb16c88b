import { LOG_SPECS, type LogSpec } from "./log-specs.js";
import type { LogRecord } from "./types.js";

/** Seeded PRNG (mulberry32): the same seed always yields the same numbers (the dataset, the soak's cases). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHANNELS = ["ICBC", "CMB", "BOC", "CCB"] as const;

/** Fills a message template's placeholders with values drawn from the PRNG. */
function fill(template: string, random: () => number): string {
  const pick = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  return template
    .replace("{ms}", () => String(pick(3000, 3400)))
    .replace("{order}", () => `o-${pick(100000, 999999).toString(36)}`)
    .replace("{channel}", () => CHANNELS[pick(0, 2)])
    .replace("{sku}", () => `SKU-${pick(1000, 9999)}`)
    .replace("{n}", () => String(pick(5, 120)));
}

/** Expands one batch into lines spread over its window; with `minSecondsAgo`, the first line is exactly that old. */
function expand(spec: LogSpec, random: () => number): LogRecord[] {
  const youngest = spec.minSecondsAgo ?? 60;
  const span = spec.withinHours * 3600 - youngest;
  return Array.from({ length: spec.count }, (_, index) => ({
    service: spec.service,
    environment: spec.environment,
    level: spec.level,
    code: spec.code,
    message: fill(spec.messages[index % spec.messages.length], random),
    secondsAgo: index === 0 && spec.minSecondsAgo !== undefined ? youngest : youngest + Math.floor(random() * span),
  }));
}

/** Builds the dataset's log lines; deterministic for a given seed. */
export function generateLogs(seed = 20240611): LogRecord[] {
  const random = mulberry32(seed);
  return LOG_SPECS.flatMap((spec) => expand(spec, random));
}

/** The dataset's log lines (deterministic). */
export const LOGS: readonly LogRecord[] = generateLogs();
