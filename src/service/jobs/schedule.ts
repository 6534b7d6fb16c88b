import { Cron } from "croner";
import type { JobSchedule } from "./job.js";

/** The due times of one schedule. */
export interface DueTimes {
  /** The first due time for an engine starting at `now` (may be in the past: the period under way). */
  first(now: number): number | undefined;
  /** The first due time after `after`, or undefined when there is none. */
  next(after: number): number | undefined;
}

/** The due times of `schedule`; throws on a cron expression or time zone croner refuses. */
export function dueTimes(schedule: JobSchedule): DueTimes {
  switch (schedule.kind) {
    case "every": {
      const { ms } = schedule;
      if (!(ms > 0)) throw new Error(`a job's interval must be positive, not ${ms}`);
      const next = (after: number) => (Math.floor(after / ms) + 1) * ms;
      return { first: (now) => (schedule.atStart ? Math.floor(now / ms) * ms : next(now)), next };
    }
    case "cron": {
      // No callback: croner only computes the times, it starts no timer of its own.
      const cron = new Cron(schedule.expression, { timezone: schedule.timezone, paused: true });
      const next = (after: number) => cron.nextRun(new Date(after))?.getTime();
      return { first: next, next };
    }
    case "at":
      return { first: () => schedule.at, next: () => undefined };
    default: {
      const _exhaustive: never = schedule;
      return _exhaustive;
    }
  }
}

/**
 * The latest due time in (`after`, `now`], or undefined when none fell there. Widens a window
 * back from `now` until it holds one, so a long gap of a frequent schedule costs a few steps,
 * not one per due time missed.
 */
export function latestDue(times: DueTimes, after: number, now: number): number | undefined {
  const first = times.next(after);
  if (first === undefined || first > now) return undefined;
  let span = 1_000;
  let from = Math.max(after, now - span);
  while (from > after && (times.next(from) ?? Infinity) > now) {
    span *= 2;
    from = Math.max(after, now - span);
  }
  let latest = times.next(from)!;
  for (let due = times.next(latest); due !== undefined && due <= now; due = times.next(due)) latest = due;
  return latest;
}
