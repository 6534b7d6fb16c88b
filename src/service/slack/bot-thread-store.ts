import type { IncidentRow } from "../../storage/types.js";
import type { SlackThreadStore } from "../../storage/slack/types.js";
import { sleep } from "../notices/retried-call.js";

/** Where an incident's messages go: the channel id and the parent message's `ts`. */
export interface SlackThreadPlace {
  channel: string;
  ts: string;
}

/** How an incident's parent message is found or posted. */
export interface SlackThreadsOptions {
  /** The stored rows, shared by every process on the database. */
  store: SlackThreadStore;
  /** `OPSPILOT_SLACK_CHANNEL`. */
  channel: string;
  /** Posts the incident's parent message; undefined when it was given up (already logged and counted). */
  postParent(incident: IncidentRow, channel: string): Promise<SlackThreadPlace | undefined>;
  /** How long an update waits for another process to post the parent, in ms (15000 by default). */
  waitMs?: number;
  /** How often it looks, in ms (250 by default). */
  pollMs?: number;
  /** A claim without a `ts` older than this is taken over (its poster died), in ms (60000 by default). */
  staleMs?: number;
  /** Aborted when the process closes: stop waiting. */
  signal: AbortSignal;
}

/**
 * Each incident's one parent message. The first update of an incident (its opening, or any
 * later one when that failed) claims the incident's row and posts the parent; every other
 * update, in this process or another, finds the stored `ts` or waits for it, so an incident
 * never gets two parents. A post that fails gives the claim up, so the next update tries again.
 */
export function createSlackThreads(options: SlackThreadsOptions) {
  const waitMs = options.waitMs ?? 15_000;
  const pollMs = options.pollMs ?? 250;
  const staleMs = options.staleMs ?? 60_000;

  async function claimAndPost(incident: IncidentRow): Promise<SlackThreadPlace | undefined> {
    const now = Date.now();
    if (!(await options.store.claim(incident.incidentId, options.channel, now, now - staleMs))) return undefined;
    const posted = await options.postParent(incident, options.channel);
    if (posted) await options.store.setTs(incident.incidentId, posted.channel, posted.ts);
    else await options.store.release(incident.incidentId);
    return posted;
  }

  return {
    /** The incident's thread: stored, posted now, or posted by another process meanwhile; undefined when none could be. */
    async placeOf(incident: IncidentRow): Promise<SlackThreadPlace | undefined> {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const row = await options.store.get(incident.incidentId);
        if (row?.ts) return { channel: row.channel, ts: row.ts };
        const stale = row !== undefined && row.claimedAt < Date.now() - staleMs;
        if (row === undefined || stale) {
          const posted = await claimAndPost(incident);
          // Posted here, or given up here (the post failed): either way this update has its answer.
          if (posted || (await options.store.get(incident.incidentId)) === undefined) return posted;
        }
        if (Date.now() >= deadline || options.signal.aborted) return undefined;
        await sleep(pollMs, options.signal);
      }
    },
  };
}

/** The incidents' threads `createSlackThreads` keeps. */
export type SlackThreads = ReturnType<typeof createSlackThreads>;
