import { Counter, type Registry } from "prom-client";

/** The updates each write-back target may give up (the `update` label): a fixed set, so the series stay few. */
export const WRITE_BACK_UPDATES = {
  slack: ["parent", "pause", "action", "answer", "resolution", "postmortem"],
  pagerduty: ["summary", "resolution"],
} as const;

/** Where incident updates are written back. */
export type WriteBackTarget = keyof typeof WRITE_BACK_UPDATES;

/** The updates a target may give up. */
export type WriteBackUpdate<Target extends WriteBackTarget> = (typeof WRITE_BACK_UPDATES)[Target][number];

/** A write-back given up after its retries (and logged): where it was going and which update it was. */
export type WriteBackFailure = {
  [Target in WriteBackTarget]: { target: Target; update: WriteBackUpdate<Target> };
}[WriteBackTarget];

/**
 * `opspilot_writeback_failures_total{target,update}` on `registry`: Slack updates and PagerDuty
 * notes given up after their retries. Every series is there at 0 from the start, so an alert on
 * its increase sees the first failure.
 */
export function writeBackFailuresCounter(registry: Registry): Counter<"target" | "update"> {
  const counter = new Counter({
    name: "opspilot_writeback_failures_total",
    help: "Incident updates written back to Slack or PagerDuty that were given up after their retries (logged), by target and update",
    labelNames: ["target", "update"],
    registers: [registry],
  });
  for (const [target, updates] of Object.entries(WRITE_BACK_UPDATES))
    for (const update of updates) counter.inc({ target, update }, 0);
  return counter;
}
