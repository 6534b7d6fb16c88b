import type { Pruner, PruneReport } from "../../storage/retention/prune.js";
import type { JobDefinition } from "./job.js";

/** A day in milliseconds: how often the retention job prunes, and the unit of retention. */
export const DAY_MS = 86_400_000;

/** What the retention job prunes. */
export interface RetentionJobOptions {
  storage: Pruner;
  /** Days of history kept (`OPSPILOT_RETENTION_DAYS`). */
  retentionDays: number;
  /** Sees each finished prune (tests, logs). */
  onPruned?: (report: PruneReport) => void;
  /** Time between prunes (a day by default). */
  everyMs?: number;
}

/**
 * The `retention` job: prunes history older than `retentionDays`, once per UTC day (by default),
 * and at start when no process pruned yet that day. A failed prune is the engine's to log and
 * count; the next day's tries again.
 */
export function retentionJob(options: RetentionJobOptions): JobDefinition {
  return {
    name: "retention",
    schedule: { kind: "every", ms: options.everyMs ?? DAY_MS, atStart: true },
    async run() {
      const report = await options.storage.prune(Date.now() - options.retentionDays * DAY_MS);
      options.onPruned?.(report);
    },
  };
}

/** Parses `--older-than` values: `30d`, `12h`, `90m` (days, hours, minutes). */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+)([dhm])$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { d: DAY_MS, h: 3_600_000, m: 60_000 }[match[2] as "d" | "h" | "m"];
  return Number(match[1]) * unit;
}
