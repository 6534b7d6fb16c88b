import type { Env } from "../../config/env.js";
import type { ConfigFile } from "../../config/schema.js";
import type { CurrentRoles } from "../../contracts/user.js";
import type { Logger } from "../../service/observability/logger.js";
import type { Runtime } from "../../service/runtime/runtime.js";
import { createSlackApprovals } from "../../service/slack/approvals.js";
import { createSlackResponder } from "../../service/slack/outcome.js";
import type { SlackIntake } from "./route.js";

/**
 * Slack interactivity over a runtime, when `OPSPILOT_SLACK_SIGNING_SECRET` is set (else
 * undefined, and the route answers 404): clicks are answered as the opspilot users that
 * `chat.slack.users` maps them to, with the roles `currentRoles` gives them. Close its
 * `approvals` before the runtime.
 */
export function slackIntakeOf(options: {
  env: Pick<Env, "OPSPILOT_SLACK_SIGNING_SECRET">;
  config: ConfigFile;
  runtime: Runtime;
  currentRoles: CurrentRoles | undefined;
  logger: Logger;
  /** Allowed `response_url` prefixes; Slack's own by default (tests name a loopback receiver). */
  responseUrlPrefixes?: readonly string[];
  /** Told of each reply that could not be delivered (`opspilot_slack_reply_failures_total{action}`). */
  onReplyFailure?: (action: "approve" | "reject") => void;
}): SlackIntake | undefined {
  const signingSecret = options.env.OPSPILOT_SLACK_SIGNING_SECRET;
  if (!signingSecret) return undefined;
  const { logger, responseUrlPrefixes, onReplyFailure } = options;
  const approvals = createSlackApprovals({
    runtime: options.runtime,
    users: options.config.chat?.slack?.users ?? {},
    currentRoles: options.currentRoles,
    responder: createSlackResponder({
      logger,
      ...(responseUrlPrefixes ? { responseUrlPrefixes } : {}),
      ...(onReplyFailure ? { onFailure: onReplyFailure } : {}),
    }),
    logger,
  });
  return { signingSecret, approvals, ...(responseUrlPrefixes ? { responseUrlPrefixes } : {}) };
}
