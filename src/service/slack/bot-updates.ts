import type { RunEvent } from "../../contracts/events.js";
import type { IncidentRow, IncidentStore } from "../../storage/types.js";
import type { SlackThreadStore } from "../../storage/slack/types.js";
import type { Logger } from "../observability/logger.js";
import type { WriteBackUpdate } from "../observability/write-back-failures.js";
import { incidentIdOfThread } from "../incidents/incidents.js";
import { retriedCall, type RetryPolicy } from "../notices/retried-call.js";
import { createWebhookDelivery, WEBHOOK_CLOSE_GRACE_MS } from "../notices/webhook-delivery.js";
import type { SlackBotClient, SlackBotMessage } from "./bot-client.js";
import {
  actionMessage,
  answerMessage,
  parentMessage,
  pauseMessage,
  postmortemMessage,
  resolutionMessage,
  type SlackBotBody,
} from "./bot-messages.js";
import { createSlackThreads, type SlackThreadPlace } from "./bot-thread-store.js";
import { finalAnswerOf, isDuplicate, updateKeyOf, type ThreadUpdate } from "./bot-events.js";

/** An update that was given up: what it was, of which incident, and Slack's error. */
export interface SlackBotFailure {
  incidentId: string;
  /** `parent`, `answer`, `pause`, `action`, `resolution` or `postmortem`. */
  update: WriteBackUpdate<"slack">;
  /** Slack's error code (`channel_not_found`, `ratelimited`) or the transport's failure. */
  error: string;
}

/** What the bot reads and where it posts. */
export interface SlackIncidentThreadsOptions {
  client: SlackBotClient;
  /** `OPSPILOT_SLACK_CHANNEL`. */
  channel: string;
  storage: {
    incidents: Pick<IncidentStore, "getIncident">;
    slackThreads: SlackThreadStore;
    eventsAfter(threadId: string, afterSeq: number): Promise<RunEvent[]>;
  };
  /** Base URL of the web page, for the thread links. */
  publicUrl: string;
  /** Whether a tool is a write: its results are posted as actions (reads are not). */
  isWrite(tool: string): boolean;
  logger: Logger;
  /** Told of each update given up (metrics); it was logged already. */
  onFailure?(failure: SlackBotFailure): void;
  /** Attempts per message, the first included (4 by default). */
  attempts?: number;
  /** Wait before the first retry of a transient failure, doubled each time, in ms (1000 by default). */
  backoffMs?: number;
  /** Longest `Retry-After` waited for; a longer one gives the update up (logged), in ms (60000 by default). */
  maxRetryAfterMs?: number;
  /** How long an update waits for another process to post the parent, in ms. */
  parentWaitMs?: number;
}

/** Posts incidents to Slack as one parent message each, with every later update a reply in its thread. */
export interface SlackIncidentThreads {
  /** Sees every recorded event (the runtime's `onEvent`): answers, pauses and writes of incident threads are posted. */
  observe(event: RunEvent): void;
  /** An incident was opened (its parent is posted) or resolved (the resolution is posted) by an alert delivery. */
  delivered(incidentId: string, outcome: "opened" | "follow_up" | "resolved" | "unchanged"): void;
  /** Posts the link of the incident's postmortem draft in its thread. */
  postmortem(incidentId: string, link: string): void;
  /** Updates given up so far. */
  failures(): number;
  /** Resolves once every update started so far was posted or given up. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for updates under way, then abandons them (logged). */
  close(graceMs?: number): Promise<void>;
}

/** Updates kept in memory to skip a second post at once. */
const REMEMBERED_UPDATES = 1_000;

/**
 * The incidents' Slack threads. Each update is posted in the background, in order per incident,
 * as a reply (`thread_ts`) to the incident's parent message; a pause's reply carries the same
 * Approve and Reject buttons as a pause notice, which the interactivity route answers. What is
 * posted is what incident notices carry (masked, escaped, cut), so nothing leaves that a notice
 * would not send. Slack's refusals (`ok: false`) are given up at once, its transient failures
 * retried, and a 429 waits its `Retry-After`; every update given up is logged and counted.
 */
export function createSlackIncidentThreads(options: SlackIncidentThreadsOptions): SlackIncidentThreads {
  const { storage, logger } = options;
  const policy: RetryPolicy = {
    attempts: options.attempts ?? 4,
    backoffMs: options.backoffMs ?? 1_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
  };
  const background = createWebhookDelivery({ logger });
  const chains = new Map<string, Promise<void>>();
  const seen = new Set<string>();
  let failed = 0;

  function giveUp(failure: SlackBotFailure): void {
    failed += 1;
    logger.error(
      `slack bot: could not post the ${failure.update} of incident ${failure.incidentId} to Slack (${failure.error})`,
    );
    options.onFailure?.(failure);
  }

  /** One message, with the retries Slack's answers allow; the place it went to, or undefined once given up. */
  async function post(message: SlackBotMessage, about: Omit<SlackBotFailure, "error">) {
    const posted = await retriedCall(
      (signal) => options.client.postMessage(message, signal),
      policy,
      background.signal,
    );
    if (posted.ok) return posted.value;
    giveUp({ ...about, error: posted.error });
    return undefined;
  }

  const threads = createSlackThreads({
    store: storage.slackThreads,
    channel: options.channel,
    signal: background.signal,
    waitMs: options.parentWaitMs,
    postParent: (incident, channel): Promise<SlackThreadPlace | undefined> =>
      post(
        { channel, ...parentMessage(incident, options.publicUrl) },
        { incidentId: incident.incidentId, update: "parent" },
      ),
  });

  /** Posts `body` in the incident's thread, after the incident's earlier updates. */
  function reply(
    incidentId: string,
    update: WriteBackUpdate<"slack">,
    body: (incident: IncidentRow) => Promise<SlackBotBody | undefined>,
  ) {
    const previous = chains.get(incidentId) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        const incident = await storage.incidents.getIncident(incidentId);
        if (!incident) return;
        const place = await threads.placeOf(incident);
        const message = update === "parent" ? undefined : await body(incident);
        if (!message) return;
        if (!place) return giveUp({ incidentId, update, error: "the incident's parent message could not be posted" });
        await post({ channel: place.channel, threadTs: place.ts, ...message }, { incidentId, update });
      } catch (error) {
        logger.error(`slack bot: the ${update} of incident ${incidentId} failed`, error);
        giveUp({ incidentId, update, error: "internal error" });
      }
    });
    chains.set(incidentId, next);
    void next.then(() => {
      if (chains.get(incidentId) === next) chains.delete(incidentId);
    });
    background.run(`slack bot: the ${update} of incident ${incidentId} failed`, () => next);
  }

  function remember(key: string): boolean {
    if (seen.has(key)) return false;
    seen.add(key);
    if (seen.size > REMEMBERED_UPDATES) seen.delete(seen.values().next().value!);
    return true;
  }

  function updateOf(event: ThreadUpdate, incident: IncidentRow, recorded: readonly RunEvent[]): SlackBotBody {
    switch (event.type) {
      case "loop_interrupt":
        return pauseMessage(event, options.publicUrl);
      case "tool_result":
        return actionMessage(event);
      case "run_finished":
        return answerMessage({
          incident,
          runId: event.runId,
          stopReason: event.stopReason,
          answer: finalAnswerOf(recorded, event),
          publicUrl: options.publicUrl,
        });
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  return {
    observe(event) {
      if (background.closed) return;
      const incidentId = incidentIdOfThread(event.threadId);
      const key = incidentId && updateKeyOf(event, options.isWrite);
      if (!incidentId || !key || !remember(key.key)) return;
      reply(incidentId, key.update, async (incident) => {
        if (incident.threadId !== event.threadId) return undefined;
        const recorded = await storage.eventsAfter(event.threadId, 0);
        // A recovered run records its pause or end again: one reply each.
        if (isDuplicate(recorded, key.event)) return undefined;
        return updateOf(key.event, incident, recorded);
      });
    },
    delivered(incidentId, outcome) {
      if (background.closed) return;
      if (outcome === "opened") reply(incidentId, "parent", async () => undefined);
      if (outcome === "resolved")
        reply(incidentId, "resolution", async (incident) => resolutionMessage(incident, options.publicUrl));
    },
    postmortem(incidentId, link) {
      if (!background.closed) reply(incidentId, "postmortem", async (incident) => postmortemMessage(incident, link));
    },
    failures: () => failed,
    idle: () => background.idle(),
    close: (graceMs = WEBHOOK_CLOSE_GRACE_MS) => background.close(graceMs),
  };
}
