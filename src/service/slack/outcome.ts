import type { Logger } from "../observability/logger.js";
import { createWebhookDelivery, WEBHOOK_CLOSE_GRACE_MS, type WebhookRetries } from "../notices/webhook-delivery.js";

/** Where Slack's `response_url`s live; any other address is refused, whoever signed the request. */
export const SLACK_RESPONSE_URL_PREFIXES: readonly string[] = ["https://hooks.slack.com/"];

/**
 * What is said back to the clicking person: `replace` rewrites the notice for the whole channel
 * (its buttons go away), `ephemeral` is shown to that person only and leaves the notice as it was.
 */
export type SlackReply = { kind: "replace"; text: string } | { kind: "ephemeral"; text: string };

/** Whether `url` is a `response_url` this process may POST to: https and under one of `prefixes`. */
export function isAllowedResponseUrl(url: string, prefixes: readonly string[]): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  // Compared on the parsed form, so userinfo or an odd spelling cannot pass a prefix it does not live under.
  return parsed.username === "" && parsed.password === "" && prefixes.some((prefix) => parsed.href.startsWith(prefix));
}

/** The JSON body Slack's `response_url` takes for a reply. */
export function slackReplyBody(reply: SlackReply): Record<string, unknown> {
  switch (reply.kind) {
    case "replace":
      return { replace_original: true, text: reply.text };
    case "ephemeral":
      return { response_type: "ephemeral", replace_original: false, text: reply.text };
    default: {
      const _exhaustive: never = reply;
      return _exhaustive;
    }
  }
}

/** Whose click a reply answers, so a reply that cannot be delivered is logged and counted by who and what. */
export interface SlackReplyAbout {
  /** The clicking Slack user (`user.id`). */
  slackUserId: string;
  /** What the button answered. */
  action: "approve" | "reject";
  /** The thread the click answered a pause of. */
  threadId: string;
}

/** Posts replies to Slack's `response_url`s in the background. */
export interface SlackResponder {
  /**
   * POSTs `reply` to `responseUrl` in the background. A reply refused (not an allowed address)
   * or given up is logged with the Slack user, the action and what it would have said, and counted.
   */
  reply(responseUrl: string, reply: SlackReply, about: SlackReplyAbout): void;
  /** Resolves once every reply started so far was delivered or given up. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for replies under way, then abandons them (logged). */
  close(graceMs?: number): Promise<void>;
}

/** How replies are posted. */
export interface SlackResponderOptions extends WebhookRetries {
  /** Where a reply given up for good is logged. */
  logger: Logger;
  /** Told of each reply that was refused or given up (`opspilot_slack_reply_failures_total{action}`). */
  onFailure?: (action: SlackReplyAbout["action"]) => void;
  /** Allowed `response_url` prefixes (`SLACK_RESPONSE_URL_PREFIXES` by default; tests name a loopback receiver). */
  responseUrlPrefixes?: readonly string[];
}

/**
 * Replies through `response_url` with the shared webhook delivery: retried on network errors,
 * 429 and 5xx; a final failure is logged and counted. Slack takes up to five replies per
 * `response_url` within 30 minutes, so one click gets one reply.
 */
export function createSlackResponder(options: SlackResponderOptions): SlackResponder {
  const delivery = createWebhookDelivery(options);
  const prefixes = options.responseUrlPrefixes ?? SLACK_RESPONSE_URL_PREFIXES;
  const failed = (about: SlackReplyAbout, reply: SlackReply, why: string) => {
    options.logger.error(
      `slack: the reply to ${about.slackUserId}'s ${about.action} on thread ${about.threadId} was not delivered (${why}); it said: ${JSON.stringify(reply.text)}`,
    );
    options.onFailure?.(about.action);
  };
  return {
    reply(responseUrl, reply, about) {
      if (!isAllowedResponseUrl(responseUrl, prefixes)) {
        failed(about, reply, `refused to post to ${JSON.stringify(responseUrl)}: not a Slack response_url`);
        return;
      }
      delivery.run("slack reply failed", async () => {
        const outcome = await delivery.post(responseUrl, slackReplyBody(reply));
        // The response_url is Slack's one-time address: named by its host only.
        if (!outcome.ok) failed(about, reply, `${new URL(responseUrl).host}: ${outcome.failure}`);
      });
    },
    idle: () => delivery.idle(),
    close: (graceMs = WEBHOOK_CLOSE_GRACE_MS) => delivery.close(graceMs),
  };
}
