import { z } from "zod";

/** Shapes of a pause or incident notice's body (`src/service/notices/pause-webhook-body.ts`, `incident-notice-body.ts`). */
const PAUSE_WEBHOOK_FORMATS = ["json", "slack", "feishu", "dingtalk"] as const;

/** Where pause and incident notices go, and the address their links point at. */
export const NOTICE_VARS = {
  OPSPILOT_PAUSE_WEBHOOK: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://hooks.slack.com/services/..." })
    .optional()
    .describe("URL each new pause (a question or an approval waiting for a person) is POSTed to; unset: no notices"),
  OPSPILOT_PAUSE_WEBHOOK_FORMAT: z
    .enum(PAUSE_WEBHOOK_FORMATS, { error: `must be one of ${PAUSE_WEBHOOK_FORMATS.join(", ")}` })
    .default("json")
    .describe(
      "Body of a pause notice: generic json, or a text message for slack, feishu or dingtalk incoming webhooks",
    ),
  OPSPILOT_INCIDENT_WEBHOOK: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://hooks.slack.com/services/..." })
    .optional()
    .describe(
      "URL each answer and pause of a run on an incident's thread is POSTed to, whoever started the run; unset: no incident notices",
    ),
  OPSPILOT_INCIDENT_WEBHOOK_FORMAT: z
    .enum(PAUSE_WEBHOOK_FORMATS, { error: `must be one of ${PAUSE_WEBHOOK_FORMATS.join(", ")}` })
    .default("json")
    .describe(
      "Body of an incident notice: generic json, or a text message for slack, feishu or dingtalk incoming webhooks",
    ),
  OPSPILOT_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://opspilot.example.com" })
    .optional()
    .describe(
      "Address people open the web page at, for links in pause notices and the single sign-on callback (default http://HOST:PORT)",
    ),
};
