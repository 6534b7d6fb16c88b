import type { Logger } from "../observability/logger.js";
import { settleWithin } from "../runtime/settle.js";
import { retriedCall } from "./retried-call.js";
import { targetHost, targetOutages } from "./target-outages.js";

/** How hard one notice is pushed to its receiver. */
export interface WebhookRetries {
  /** Attempts per notice, the first included (4 by default). */
  attempts?: number;
  /** Time limit of one attempt, in ms (5000 by default). */
  timeoutMs?: number;
  /** Wait before the first retry, doubled before each next one, in ms (500 by default). */
  backoffMs?: number;
}

/** What became of one POST: delivered, or the reason it was given up. */
export type WebhookOutcome = { ok: true } | { ok: false; failure: string };

/** Notices under way in the background, which a closing process waits for a while and then abandons. */
export interface WebhookDelivery {
  /** True once `close` began: nothing new should start. */
  readonly closed: boolean;
  /** Aborted once `close` stops waiting: work of a task that no POST carries should stop waiting too. */
  readonly signal: AbortSignal;
  /** Runs `task` in the background; a task that throws is logged under `label`. Ignored once closed. */
  run(label: string, task: () => Promise<void>): void;
  /**
   * POSTs `body` as JSON to `url` with retries; never throws, and gives up at once when the
   * delivery closes. A notice given up is logged with `failed`'s line, when given: every one
   * without a `target`; with one, only the notice that opens the target's outage (and those
   * cut short by closing), as a warning that names the target's host.
   */
  post(url: string, body: unknown, failed?: (failure: string) => string): Promise<WebhookOutcome>;
  /** Resolves once every task started so far has settled. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for the tasks under way, then cuts their POSTs short and waits for them to settle. */
  close(graceMs: number): Promise<void>;
}

/** How long a closing process waits for notices still under way. */
export const WEBHOOK_CLOSE_GRACE_MS = 2_000;

/** A status worth another attempt: the receiver is overloaded or failing, not refusing the request. */
const retryable = (status: number) => status === 429 || status >= 500;

/** Who delivers, and for notifiers with fixed targets, what their notices are called. */
export interface WebhookDeliveryOptions extends WebhookRetries {
  logger: Logger;
  /**
   * What the notices are (`pause notices`): set, each target's outage is logged once with its host
   * and once when it recovers (`target-outages.ts`); unset, logging a notice given up stays with the caller.
   */
  target?: string;
}

/**
 * Fire-and-forget webhook delivery shared by every notifier: a slow or failing receiver never
 * delays or fails a run. Network errors, timeouts, 429 and 5xx are retried with exponential
 * backoff; a refusal (another 4xx) is final. Deciding what to send stays with the notifier.
 */
export function createWebhookDelivery(options: WebhookDeliveryOptions): WebhookDelivery {
  const attempts = options.attempts ?? 4;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const backoffMs = options.backoffMs ?? 500;
  const inFlight = new Set<Promise<void>>();
  // Aborted on close: cuts the attempt under way and the wait before the next one.
  const closing = new AbortController();

  const { logger, target } = options;
  const outages = target ? targetOutages({ logger, target }) : undefined;

  async function post(url: string, body: unknown, failed?: (failure: string) => string): Promise<WebhookOutcome> {
    const outcome = await postWithRetries(url, body);
    if (outcome.ok) outages?.delivered(url);
    // A notice cut short by closing says nothing about the target: logged as before, outage or not.
    else if (!outages || closing.signal.aborted) {
      if (failed) logger.error(failed(outcome.failure));
    } else if (outages.failed(url) === "began") {
      const line = `${target} to ${targetHost(url)} are failing; no further failure is logged until one is delivered again`;
      const message = failed ? `${failed(outcome.failure)}; ${line}` : `${line} (${outcome.failure})`;
      if (logger.warn) logger.warn(message);
      else logger.error(message);
    }
    return outcome;
  }

  async function postWithRetries(url: string, body: unknown): Promise<WebhookOutcome> {
    const payload = JSON.stringify(body);
    const outcome = await retriedCall<undefined>(
      async (signal) => {
        try {
          const response = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: payload,
            signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]),
          });
          await response.body?.cancel();
          if (response.ok) return { ok: true, value: undefined };
          return { ok: false, error: `HTTP ${response.status}`, retry: retryable(response.status) };
        } catch (error) {
          const timedOut = error instanceof Error && error.name === "TimeoutError";
          return {
            ok: false,
            error: timedOut ? `no answer within ${timeoutMs} ms` : networkFailure(error),
            retry: true,
          };
        }
      },
      // A webhook's Retry-After is not read: the back-off alone paces the attempts.
      { attempts, backoffMs, maxRetryAfterMs: Number.POSITIVE_INFINITY },
      closing.signal,
    );
    return outcome.ok ? { ok: true } : { ok: false, failure: outcome.error };
  }

  return {
    get closed() {
      return closing.signal.aborted;
    },
    signal: closing.signal,
    run(label, task) {
      if (closing.signal.aborted) return;
      const running = task()
        .catch((error: unknown) => options.logger.error(label, error))
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    },
    post,
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async close(graceMs) {
      await settleWithin([...inFlight], graceMs);
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** A network error in one line, with its system code when fetch gives one (`TypeError: fetch failed (ECONNREFUSED)`). */
function networkFailure(error: unknown): string {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === "string" ? `${String(error)} (${code})` : String(error);
}
