import type { Pruner, PruneReport } from "../../storage/retention/prune.js";
import type { Logger } from "../observability/logger.js";

/** A day in milliseconds: how often the server prunes, and the unit of retention. */
export const DAY_MS = 86_400_000;

/** What `schedulePrune` runs. */
export interface PruneSchedule {
  storage: Pruner;
  /** Days of history kept (`OPSPILOT_RETENTION_DAYS`). */
  retentionDays: number;
  /** Receives a failed prune; the next one tries again. */
  logger: Logger;
  /** Sees each finished prune (tests, logs). */
  onPruned?: (report: PruneReport) => void;
  /** Time between prunes (a day by default). */
  everyMs?: number;
}

/**
 * Prunes now and then once per interval. The timer is unref'd, so it never keeps a stopping
 * process alive, and a prune still running when the next is due is not started twice.
 */
export function schedulePrune(schedule: PruneSchedule): { stop(): void } {
  let running = false;
  const pruneNow = () => {
    if (running) return;
    running = true;
    schedule.storage
      .prune(Date.now() - schedule.retentionDays * DAY_MS)
      .then(
        (report) => schedule.onPruned?.(report),
        (error: unknown) => schedule.logger.error("pruning old history failed", error),
      )
      .finally(() => {
        running = false;
      });
  };
  pruneNow();
  const timer = setInterval(pruneNow, schedule.everyMs ?? DAY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Parses `--older-than` values: `30d`, `12h`, `90m` (days, hours, minutes). */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+)([dhm])$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { d: DAY_MS, h: 3_600_000, m: 60_000 }[match[2] as "d" | "h" | "m"];
  return Number(match[1]) * unit;
}
