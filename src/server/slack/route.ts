import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { SlackApprovals } from "../../service/slack/approvals.js";
import { SLACK_RESPONSE_URL_PREFIXES } from "../../service/slack/outcome.js";
import type { AppEnv } from "../auth/auth.js";
import { errorResponse, RequestError } from "../http-errors.js";
import { readSlackInteraction } from "./payload.js";
import { verifySlackRequest } from "./signature.js";

/** Largest interaction body read, in bytes: Slack sends the whole message the button sits in. */
export const MAX_SLACK_BODY_BYTES = 256 * 1024;

/** What Slack interactivity is built from. */
export interface SlackIntake {
  /** `OPSPILOT_SLACK_SIGNING_SECRET`: the Slack app's signing secret. */
  signingSecret: string;
  /** Applies the clicks after the acknowledgement. */
  approvals: SlackApprovals;
  /** Allowed `response_url` prefixes (`SLACK_RESPONSE_URL_PREFIXES` by default; tests name a loopback receiver). */
  responseUrlPrefixes?: readonly string[];
  /** The clock the timestamp window is judged by (epoch ms; `Date.now` by default). */
  now?: () => number;
}

/**
 * `POST /api/integrations/slack/interactions`, mounted before the API's token check: Slack signs
 * each request (`slack-signature.ts`). In this order: the signature and timestamp over the raw
 * body (401), the form and its `block_actions` payload (400); then an empty 200 at once, since
 * Slack wants its answer within 3 seconds, and the clicks are applied in the background and
 * reported through `response_url`. Off (404) without a signing secret.
 */
export function slackRoutes(slack: SlackIntake | undefined): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use(
    "*",
    bodyLimit({
      maxSize: MAX_SLACK_BODY_BYTES,
      onError: (c) => {
        c.header("Connection", "close");
        return errorResponse(c, 413, "body_too_large", `The interaction body exceeds ${MAX_SLACK_BODY_BYTES} bytes.`);
      },
    }),
  );
  routes.post("/interactions", async (c) => {
    if (!slack)
      return errorResponse(
        c,
        404,
        "slack_off",
        "Slack interactivity is off: set OPSPILOT_SLACK_SIGNING_SECRET to turn it on.",
      );
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const verdict = verifySlackRequest({
      body: raw,
      signature: c.req.header("x-slack-signature"),
      timestamp: c.req.header("x-slack-request-timestamp"),
      secret: slack.signingSecret,
      nowMs: (slack.now ?? Date.now)(),
    });
    if (!verdict.ok) throw new RequestError(401, "unauthorized", verdict.message);
    const interaction = readSlackInteraction(raw, slack.responseUrlPrefixes ?? SLACK_RESPONSE_URL_PREFIXES);
    if (interaction.kind === "answers") {
      const retry = c.req.header("x-slack-retry-num") !== undefined;
      for (const answer of interaction.answers)
        slack.approvals.answer({
          slackUserId: interaction.slackUserId,
          answer,
          responseUrl: interaction.responseUrl,
          retry,
        });
    }
    return c.body(null, 200);
  });
  return routes;
}
