import type { Logger } from "../observability/logger.js";

/** A target that has been failing: since when, and how many notices it lost since. */
interface Outage {
  since: number;
  lost: number;
}

/** Where a failed notice stands in its target's outage: the one that opened it, or one more of it. */
export type OutageStep = "began" | "continues";

/** Each target's outage state, from the outcome of every notice sent to it. */
export interface TargetOutages {
  /** A notice to `url` was given up: whether it opened the target's outage or continues it. */
  failed(url: string): OutageStep;
  /** A notice reached `url`: ends its outage, if any, with one info line. */
  delivered(url: string): void;
}

/**
 * A notice target's outage, so that it is logged once when it begins and once when a notice
 * reaches the target again (info, with how many were lost and for how long): a receiver down for
 * an hour leaves two lines, not one per notice. Lines name the target's host only, never its
 * path or query (a webhook's path is often its secret). State is per target, in this process.
 */
export function targetOutages(options: { logger: Logger; target: string; now?: () => number }): TargetOutages {
  const outages = new Map<string, Outage>();
  const now = options.now ?? Date.now;
  return {
    failed(url) {
      const outage = outages.get(url);
      if (outage) {
        outage.lost += 1;
        return "continues";
      }
      outages.set(url, { since: now(), lost: 1 });
      return "began";
    },
    delivered(url) {
      const outage = outages.get(url);
      if (!outage) return;
      outages.delete(url);
      const seconds = Math.round((now() - outage.since) / 1000);
      options.logger.info?.(
        `${options.target} to ${targetHost(url)} are delivered again, after ${outage.lost} failed over ${seconds} s`,
      );
    },
  };
}

/** The host (and port) of a target URL, for log lines: never its path, query or userinfo. */
export function targetHost(url: string): string {
  return URL.canParse(url) ? new URL(url).host : "an invalid URL";
}
