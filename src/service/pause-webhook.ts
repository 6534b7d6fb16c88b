import type { RunEvent } from "../contracts/events.js";
import type { Logger } from "./logger.js";
import { settleWithin } from "./shutdown.js";
import { pauseNotice, pauseWebhookBody, type PauseEvent, type PauseWebhookFormat } from "./pause-webhook-body.js";

/** Where and how pauses are announced. */
export interface PauseWebhookOptions {
  /** The http(s) URL each new pause is POSTed to. */
  url: string;
  /** Shape of the body (generic JSON by default). */
  format?: PauseWebhookFormat;
  /** Base URL of the web page, for the thread link. */
  publicUrl: string;
  /** The recorded events: a pause already recorded before, by this process or another, is not announced again. */
  events: { eventsAfter(threadId: string, afterSeq: number): Promise<RunEvent[]> };
  /** Receives deliveries that failed for good. */
  logger: Logger;
  /** Attempts per notice, the first included (4 by default). */
  attempts?: number;
  /** Time limit of one attempt, in ms (5000 by default). */
  timeoutMs?: number;
  /** Wait before the first retry, doubled before each next one, in ms (500 by default). */
  backoffMs?: number;
}

/** Announces pauses; `notify` returns at once and never throws. */
export interface PauseWebhook {
  /** Sends the notice of a newly recorded pause in the background. */
  notify(event: PauseEvent): void;
  /** Resolves once every notice started so far was delivered or given up. */
  idle(): Promise<void>;
  /**
   * Waits up to `graceMs` for the notices under way, then abandons the rest (logged), so a
   * receiver that hangs never keeps a closing process alive. Later pauses are not announced.
   */
  close(graceMs?: number): Promise<void>;
}

/** How long a closing process waits for notices still under way. */
export const PAUSE_WEBHOOK_CLOSE_GRACE_MS = 2_000;

/** Pause ids kept in memory to skip a second notice at once. */
const REMEMBERED_PAUSES = 1_000;

/** A status worth another attempt: the receiver is overloaded or failing, not refusing the request. */
const retryable = (status: number) => status === 429 || status >= 500;

/**
 * POSTs each new pause to a webhook, fire and forget: a slow or failing receiver never delays
 * or fails a run. Network errors, timeouts, 429 and 5xx are retried with exponential backoff;
 * a final failure is logged. Each pause is announced once: a pause id this process already
 * sent, or one recorded earlier in the thread's events (a recovered run re-records its
 * pause; runs of a thread never overlap, since each holds the thread's lease), is skipped.
 */
export function createPauseWebhook(options: PauseWebhookOptions): PauseWebhook {
  const attempts = options.attempts ?? 4;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const backoffMs = options.backoffMs ?? 500;
  const sent = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  // Aborted on close: cuts the attempt under way and the wait before the next one.
  const closing = new AbortController();

  async function alreadyAnnounced(event: PauseEvent): Promise<boolean> {
    const recorded = await options.events.eventsAfter(event.threadId, 0);
    return recorded.some(
      (earlier) =>
        earlier.type === "loop_interrupt" && earlier.interruptId === event.interruptId && earlier.seq < event.seq,
    );
  }

  async function deliver(event: PauseEvent): Promise<void> {
    if (await alreadyAnnounced(event)) return;
    const body = JSON.stringify(pauseWebhookBody(pauseNotice(event, options.publicUrl), options.format ?? "json"));
    let failure = "";
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      if (attempt > 1) await pause(backoffMs * 2 ** (attempt - 2), closing.signal);
      if (closing.signal.aborted) {
        failure = "the process closed first";
        break;
      }
      try {
        const response = await fetch(options.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), closing.signal]),
        });
        await response.body?.cancel();
        if (response.ok) return;
        failure = `HTTP ${response.status}`;
        if (!retryable(response.status)) break;
      } catch (error) {
        failure =
          error instanceof Error && error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : String(error);
      }
    }
    options.logger.error(
      `pause webhook: could not announce pause ${event.interruptId} of thread ${event.threadId} (${failure})`,
    );
  }

  return {
    notify(event) {
      if (closing.signal.aborted || sent.has(event.interruptId)) return;
      sent.add(event.interruptId);
      // Only recent ids matter here (the recorded events cover the rest): the set stays small.
      if (sent.size > REMEMBERED_PAUSES) sent.delete(sent.values().next().value!);
      const delivery = deliver(event)
        .catch((error: unknown) => options.logger.error("pause webhook failed", error))
        .finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async close(graceMs = PAUSE_WEBHOOK_CLOSE_GRACE_MS) {
      await settleWithin([...inFlight], graceMs);
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
