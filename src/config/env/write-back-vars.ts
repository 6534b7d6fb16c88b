import { z } from "zod";

/** Slack's Web API when `OPSPILOT_SLACK_API_URL` is unset. */
export const DEFAULT_SLACK_API_URL = "https://slack.com/api";
/** PagerDuty's REST API when `OPSPILOT_PAGERDUTY_API_URL` is unset. */
export const DEFAULT_PAGERDUTY_API_URL = "https://api.pagerduty.com";

/** Slack's and PagerDuty's APIs, where incidents are written back (docs/incidents.md, "Write-back"). */
export const WRITE_BACK_VARS = {
  OPSPILOT_SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xox[a-z]-\S{8,}$/, { error: "must be a Slack bot token (xoxb-...)" })
    .optional()
    .describe(
      "Bot token of the Slack app that posts each incident to OPSPILOT_SLACK_CHANNEL and every later update in that message's thread; unset: no Slack threads",
    ),
  OPSPILOT_SLACK_CHANNEL: z
    .string()
    .regex(/^[#@]?[A-Za-z0-9._-]{1,80}$/, { error: "must be a channel id such as C0123456789 or a name such as #ops" })
    .optional()
    .describe("The Slack channel (id or #name) the bot posts incident messages to"),
  OPSPILOT_SLACK_API_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://slack.com/api" })
    .optional()
    .describe(
      `Base URL of Slack's Web API (default ${DEFAULT_SLACK_API_URL}; a proxy or a stand-in for air-gapped sites and tests)`,
    ),
  OPSPILOT_PAGERDUTY_API_TOKEN: z
    .string()
    .regex(/^\S{8,}$/, { error: "must be at least 8 characters without spaces" })
    .optional()
    .describe(
      "REST API key the investigation's summary and the resolution are written with, as notes on the PagerDuty incidents opspilot took in; unset: no notes",
    ),
  OPSPILOT_PAGERDUTY_FROM: z
    .email({ error: "must be the e-mail address of a PagerDuty user" })
    .optional()
    .describe("E-mail of the PagerDuty user the notes are written as (the From header)"),
  OPSPILOT_PAGERDUTY_API_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://api.pagerduty.com" })
    .optional()
    .describe(`Base URL of PagerDuty's REST API v2 (default ${DEFAULT_PAGERDUTY_API_URL})`),
};
