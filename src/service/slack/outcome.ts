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

/** Posts replies to Slack's `response_url`s in the background. */
export interface SlackResponder {
  /** POSTs `reply` to `responseUrl` in the background (refused and logged when it is not an allowed address). */
  reply(responseUrl: string, reply: SlackReply): void;
  /** Resolves once every reply started so far was delivered or given up. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for replies under way, then abandons them (logged). */
  close(graceMs?: number): Promise<void>;
}

/** How replies are posted. */
export interface SlackResponderOptions extends WebhookRetries {
  /** Where a reply given up for good is logged. */
  logger: Logger;
  /** Allowed `response_url` prefixes (`SLACK_RESPONSE_URL_PREFIXES` by default; tests name a loopback receiver). */
  responseUrlPrefixes?: readonly string[];
}

/**
 * Replies through `response_url` with the shared webhook delivery: retried on network errors,
 * 429 and 5xx; a final failure is logged. Slack takes up to five replies per `response_url`
 * within 30 minutes, so one click gets one reply.
 */
export function createSlackResponder(options: SlackResponderOptions): SlackResponder {
  const delivery = createWebhookDelivery(options);
  const prefixes = options.responseUrlPrefixes ?? SLACK_RESPONSE_URL_PREFIXES;
  return {
    reply(responseUrl, reply) {
      if (!isAllowedResponseUrl(responseUrl, prefixes)) {
        options.logger.error(`slack: refused to reply to ${JSON.stringify(responseUrl)}: not a Slack response_url`);
        return;
      }
      delivery.run("slack reply failed", async () => {
        const outcome = await delivery.post(responseUrl, slackReplyBody(reply));
        if (!outcome.ok) options.logger.error(`slack: could not reply through response_url (${outcome.failure})`);
      });
    },
    idle: () => delivery.idle(),
    close: (graceMs = WEBHOOK_CLOSE_GRACE_MS) => delivery.close(graceMs),
  };
}
