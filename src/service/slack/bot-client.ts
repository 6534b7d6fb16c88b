import type { AttemptOutcome } from "../notices/retried-call.js";

/** One message for `chat.postMessage`. */
export interface SlackBotMessage {
  /** Channel id or `#name`. */
  channel: string;
  /** The message's text: its notification and its fallback when blocks cannot be shown. */
  text: string;
  /** Block Kit blocks (a pause's buttons). */
  blocks?: readonly unknown[];
  /** The parent message's `ts`: the message becomes a reply in its thread. */
  threadTs?: string;
}

/**
 * What one `chat.postMessage` call came to: posted with its `ts`, or refused. Slack answers
 * HTTP 200 with `ok: false` and an error code for a refusal (`channel_not_found`, `not_in_channel`,
 * `invalid_auth`), and HTTP 429 with `Retry-After` (seconds) when the app posts too fast.
 */
export type SlackPostOutcome = AttemptOutcome<{ ts: string; channel: string }>;

/** Posts messages as the Slack app's bot. */
export interface SlackBotClient {
  /** One `chat.postMessage` call (no retries); never throws. */
  postMessage(message: SlackBotMessage, signal: AbortSignal): Promise<SlackPostOutcome>;
}

/** How the client reaches Slack. */
export interface SlackBotClientOptions {
  /** `OPSPILOT_SLACK_BOT_TOKEN` (`xoxb-...`). */
  token: string;
  /** `OPSPILOT_SLACK_API_URL`: Slack's Web API, `https://slack.com/api` in production. */
  apiUrl: string;
  /** Time limit of one call, in ms (10000 by default). */
  timeoutMs?: number;
}

/**
 * Slack's Web API over `fetch`: a JSON body with the bot token as a bearer token, as Slack
 * documents for `chat.postMessage`. Links and media are not unfurled, so a URL an investigation
 * quoted is never fetched by Slack on the channel's behalf.
 */
export function createSlackBotClient(options: SlackBotClientOptions): SlackBotClient {
  const url = `${options.apiUrl.replace(/\/+$/, "")}/chat.postMessage`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    async postMessage(message, signal) {
      const body = {
        channel: message.channel,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks } : {}),
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      };
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${options.token}`, "content-type": "application/json; charset=utf-8" },
          body: JSON.stringify(body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
      } catch (error) {
        const timedOut = error instanceof Error && error.name === "TimeoutError";
        return { ok: false, error: timedOut ? `no answer within ${timeoutMs} ms` : "unreachable", retry: true };
      }
      if (response.status === 429) {
        await response.body?.cancel();
        const seconds = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
        return {
          ok: false,
          error: "ratelimited",
          retry: true,
          retryAfterMs: (Number.isNaN(seconds) ? 1 : seconds) * 1000,
        };
      }
      const answer = (await response.json().catch(() => undefined)) as
        { ok?: unknown; ts?: unknown; channel?: unknown; error?: unknown } | undefined;
      if (response.status >= 500 || answer === undefined)
        return { ok: false, error: `HTTP ${response.status}`, retry: response.status >= 500 };
      if (answer.ok === true && typeof answer.ts === "string")
        return {
          ok: true,
          value: { ts: answer.ts, channel: typeof answer.channel === "string" ? answer.channel : message.channel },
        };
      const error = typeof answer.error === "string" ? answer.error : "unknown_error";
      // Slack's own transient failures; every other code is a refusal that repeats.
      const transient = error === "internal_error" || error === "fatal_error" || error === "service_unavailable";
      return { ok: false, error, retry: transient };
    },
  };
}
