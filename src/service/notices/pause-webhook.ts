import type { RunEvent } from "../../contracts/events.js";
import type { Logger } from "../observability/logger.js";
import { pauseNotice, pauseWebhookBody, type PauseEvent, type PauseWebhookFormat } from "./pause-webhook-body.js";
import { createWebhookDelivery, WEBHOOK_CLOSE_GRACE_MS, type WebhookRetries } from "./webhook-delivery.js";

/** Where and how pauses are announced. */
export interface PauseWebhookOptions extends WebhookRetries {
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
export const PAUSE_WEBHOOK_CLOSE_GRACE_MS = WEBHOOK_CLOSE_GRACE_MS;

/** Pause ids kept in memory to skip a second notice at once. */
const REMEMBERED_PAUSES = 1_000;

/**
 * POSTs each new pause to a webhook, fire and forget (`webhook-delivery.ts`): a slow or failing
 * receiver never delays or fails a run, and a final failure is logged. Each pause is announced
 * once: a pause id this process already sent, or one recorded earlier in the thread's events (a
 * recovered run re-records its pause; runs of a thread never overlap, since each holds the
 * thread's lease), is skipped.
 */
export function createPauseWebhook(options: PauseWebhookOptions): PauseWebhook {
  const delivery = createWebhookDelivery({ ...options, target: "pause notices" });
  const sent = new Set<string>();

  async function alreadyAnnounced(event: PauseEvent): Promise<boolean> {
    const recorded = await options.events.eventsAfter(event.threadId, 0);
    return recorded.some(
      (earlier) =>
        earlier.type === "loop_interrupt" && earlier.interruptId === event.interruptId && earlier.seq < event.seq,
    );
  }

  async function deliver(event: PauseEvent): Promise<void> {
    if (await alreadyAnnounced(event)) return;
    const body = pauseWebhookBody(pauseNotice(event, options.publicUrl), options.format ?? "json");
    await delivery.post(
      options.url,
      body,
      (failure) =>
        `pause webhook: could not announce pause ${event.interruptId} of thread ${event.threadId} (${failure})`,
    );
  }

  return {
    notify(event) {
      if (delivery.closed || sent.has(event.interruptId)) return;
      sent.add(event.interruptId);
      // Only recent ids matter here (the recorded events cover the rest): the set stays small.
      if (sent.size > REMEMBERED_PAUSES) sent.delete(sent.values().next().value!);
      delivery.run("pause webhook failed", () => deliver(event));
    },
    idle: () => delivery.idle(),
    close: (graceMs = PAUSE_WEBHOOK_CLOSE_GRACE_MS) => delivery.close(graceMs),
  };
}
