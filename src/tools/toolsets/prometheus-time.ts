import { z } from "zod";

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ms: 0.001,
  s: 1,
  m: 60,
  h: 3_600,
  d: 86_400,
  w: 604_800,
};

const DURATION = /^(?:\d+(?:ms|s|m|h|d|w))+$/;
const RELATIVE = /^now(?:-((?:\d+(?:ms|s|m|h|d|w))+))?$/;
const UNIX = /^\d+(?:\.\d+)?$/;
/** RFC 3339 with a zone: Date.parse alone would also take "May 5" in the local time zone. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Seconds of a Prometheus duration (`90s`, `5m`, `1h30m`) or a plain number of seconds; undefined when neither. */
export function durationSeconds(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  const text = value.trim();
  if (UNIX.test(text)) return Number(text);
  if (!DURATION.test(text)) return undefined;
  let seconds = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) seconds += Number(count) * UNIT_SECONDS[unit!]!;
  return seconds;
}

/**
 * Unix seconds of a time the model gave: RFC 3339 (`2025-05-01T10:00:00Z`), unix seconds,
 * `now` or `now-<duration>` (`now-1h`), read against `now` (milliseconds). Undefined when it is none of them.
 */
export function timeSeconds(value: string | number, now: number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const text = value.trim();
  if (UNIX.test(text)) return Number(text);
  const relative = RELATIVE.exec(text);
  if (relative) return now / 1000 - (relative[1] ? durationSeconds(relative[1])! : 0);
  if (!RFC3339.test(text)) return undefined;
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed / 1000;
}

/** A time field of a Prometheus tool, described for the model and checked before the call runs. */
export function timeField(what: string) {
  return z
    .union([z.string(), z.number()])
    .refine((value) => timeSeconds(value, Date.now()) !== undefined, {
      error: 'must be an RFC 3339 time ("2025-05-01T10:00:00Z"), unix seconds, "now" or "now-<duration>" ("now-1h")',
    })
    .describe(`${what}: RFC 3339 ("2025-05-01T10:00:00Z"), unix seconds, "now", or relative like "now-30m", "now-2h".`);
}

/** An ISO time of unix seconds, as observations show times. */
export function isoOf(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}
