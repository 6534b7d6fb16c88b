import type { Logger } from "../observability/logger.js";
import { noticeBody } from "../notices/chat-webhook-body.js";
import { threadLink, type PauseWebhookFormat } from "../notices/pause-webhook-body.js";
import { createWebhookDelivery, WEBHOOK_CLOSE_GRACE_MS, type WebhookRetries } from "../notices/webhook-delivery.js";

/** A pause whose approvals expired, as the runtime reports it. */
export interface ApprovalExpiredNotice {
  type: "approval_expired";
  threadId: string;
  runId: string;
  interruptId: string;
  /** ISO 8601 time the approvals expired. */
  expiresAt: string;
  /** Names of the calls' tools that were waiting, in order; none of them ran. */
  tools: string[];
  /** What each call was answered, e.g. "No one approved restart_service within 30 minutes; …". */
  messages: string[];
}

/** The generic JSON notice: the report plus the link to the thread. */
export type ApprovalExpiredBody = ApprovalExpiredNotice & { link: string };

/** The notice as a few lines of plain text, for chat webhooks. */
export function expiredText(notice: ApprovalExpiredBody): string {
  return [
    `⌛ opspilot: an approval expired, so nothing was run (${notice.tools.join(", ")})`,
    ...notice.messages,
    `Thread ${notice.threadId}: ${notice.link}`,
  ].join("\n");
}

/** The request body of an expiry notice in the chosen format. */
export function expiredWebhookBody(
  notice: ApprovalExpiredNotice,
  publicUrl: string,
  format: PauseWebhookFormat,
): unknown {
  const body: ApprovalExpiredBody = { ...notice, link: threadLink(publicUrl, notice.threadId) };
  return noticeBody(body, () => expiredText(body), format);
}

/** Where expiry notices go: the pause webhook's receiver. */
export interface ExpiryWebhookOptions extends WebhookRetries {
  url: string;
  format?: PauseWebhookFormat;
  /** Base URL of the web page, for the thread link. */
  publicUrl: string;
  logger: Logger;
}

/** Sends expiry notices in the background; `notify` returns at once and never throws. */
export interface ExpiryWebhook {
  notify(notice: ApprovalExpiredNotice): void;
  /** Resolves once every notice started so far was delivered or given up. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for notices under way, then abandons them. */
  close(graceMs?: number): Promise<void>;
}

/**
 * POSTs each expiry to `OPSPILOT_PAUSE_WEBHOOK`, in its format, with the shared retries of
 * `webhook-delivery.ts`. Only the process that expired the pause sends it, so it is sent once.
 */
export function createExpiryWebhook(options: ExpiryWebhookOptions): ExpiryWebhook {
  const delivery = createWebhookDelivery({ ...options, target: "expiry notices" });
  return {
    notify(notice) {
      delivery.run("expiry webhook failed", async () => {
        await delivery.post(
          options.url,
          expiredWebhookBody(notice, options.publicUrl, options.format ?? "json"),
          (failure) =>
            `expiry webhook: could not announce the expiry of pause ${notice.interruptId} of thread ${notice.threadId} (${failure})`,
        );
      });
    },
    idle: () => delivery.idle(),
    close: (graceMs = WEBHOOK_CLOSE_GRACE_MS) => delivery.close(graceMs),
  };
}
