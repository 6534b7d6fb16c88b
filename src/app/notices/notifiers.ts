import type { BaseStore } from "@langchain/langgraph";
import type { Env } from "../../config/env.js";
import { DEFAULT_PAGERDUTY_API_URL, DEFAULT_SLACK_API_URL } from "../../config/env/write-back-vars.js";
import { conclusionOf, recordConclusion } from "../../service/incidents/past-incidents.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { createExpiryWebhook, type ExpiryWebhook } from "../../service/approvals/expiry-notice.js";
import { createIncidentReports, type IncidentAnswer, type IncidentReports } from "../../service/incidents/reports.js";
import { createPauseWebhook, type PauseWebhook } from "../../service/notices/pause-webhook.js";
import type { Logger } from "../../service/observability/logger.js";
import type { Storage } from "../../storage/types.js";
import { ConfigError } from "../../contracts/errors.js";
import { createPagerdutyIncidentNotes } from "../../service/pagerduty/incident-notes.js";
import { createPagerdutyNotesClient } from "../../service/pagerduty/notes-client.js";
import { createSlackBotClient } from "../../service/slack/bot-client.js";
import { createSlackIncidentThreads } from "../../service/slack/bot-updates.js";
import { combinedWriteBack, type WriteBack } from "./write-back.js";
import type { WriteBackFailure } from "../../service/observability/write-back-failures.js";

/** The pause notifier `OPSPILOT_PAUSE_WEBHOOK` asks for, linking to `OPSPILOT_PUBLIC_URL` (else this server's address). */
export function pauseWebhookOf(env: Env, storage: Storage, logger: Logger): PauseWebhook | undefined {
  if (!env.OPSPILOT_PAUSE_WEBHOOK) return undefined;
  return createPauseWebhook({
    url: env.OPSPILOT_PAUSE_WEBHOOK,
    format: env.OPSPILOT_PAUSE_WEBHOOK_FORMAT,
    publicUrl: publicUrlOf(env),
    events: storage,
    logger,
  });
}

/** The notice of expired approvals, to the same `OPSPILOT_PAUSE_WEBHOOK`. */
export function expiryWebhookOf(env: Env, logger: Logger): ExpiryWebhook | undefined {
  if (!env.OPSPILOT_PAUSE_WEBHOOK) return undefined;
  return createExpiryWebhook({
    url: env.OPSPILOT_PAUSE_WEBHOOK,
    format: env.OPSPILOT_PAUSE_WEBHOOK_FORMAT,
    publicUrl: publicUrlOf(env),
    logger,
  });
}

/**
 * The reporter of incident threads' runs: always there, since alert intake may run on any
 * process and a person may answer an incident's pause from any; it POSTs notices only with
 * `OPSPILOT_INCIDENT_WEBHOOK`. Each run's end keeps the thread's conclusion in `store` (reads and
 * writes told apart by `registry`), so the next incident like it starts from it; then `onAnswer`.
 */
export function incidentReportsOf(
  env: Env,
  parts: {
    storage: Storage;
    store: BaseStore;
    logger: Logger;
    registry: Pick<ToolRegistry, "get">;
    onAnswer?: (report: IncidentAnswer) => void | Promise<void>;
  },
): IncidentReports {
  const url = env.OPSPILOT_INCIDENT_WEBHOOK;
  const isWrite = (tool: string) => parts.registry.get(tool)?.readOnly === false;
  return createIncidentReports({
    storage: parts.storage,
    logger: parts.logger,
    onAnswer: async (report) => {
      if (report.answer) await recordConclusion(parts.store, conclusionOf(report, publicUrlOf(env), isWrite));
      await parts.onAnswer?.(report);
    },
    webhook: url ? { url, format: env.OPSPILOT_INCIDENT_WEBHOOK_FORMAT, publicUrl: publicUrlOf(env) } : undefined,
  });
}

/**
 * The write-back `OPSPILOT_SLACK_BOT_TOKEN` (with `OPSPILOT_SLACK_CHANNEL`) and
 * `OPSPILOT_PAGERDUTY_API_TOKEN` (with `OPSPILOT_PAGERDUTY_FROM`) turn on; a token without its
 * partner stops start-up with a line naming both. `onFailure` hears of each update given up (the metrics).
 */
export function writeBackOf(
  env: Env,
  parts: { storage: Storage; logger: Logger; registry: ToolRegistry; onFailure?: (failure: WriteBackFailure) => void },
): WriteBack {
  const { storage, logger, onFailure } = parts;
  const publicUrl = publicUrlOf(env);
  const { OPSPILOT_SLACK_BOT_TOKEN: slackToken, OPSPILOT_SLACK_CHANNEL: channel } = env;
  if (slackToken && !channel)
    throw new ConfigError(
      "OPSPILOT_SLACK_BOT_TOKEN is set without OPSPILOT_SLACK_CHANNEL: name the channel to post to.",
    );
  const { OPSPILOT_PAGERDUTY_API_TOKEN: pagerdutyToken, OPSPILOT_PAGERDUTY_FROM: from } = env;
  if (pagerdutyToken && !from)
    throw new ConfigError(
      "OPSPILOT_PAGERDUTY_API_TOKEN is set without OPSPILOT_PAGERDUTY_FROM: name the e-mail of the PagerDuty user the notes are written as.",
    );
  const slackClient =
    slackToken &&
    createSlackBotClient({ token: slackToken, apiUrl: env.OPSPILOT_SLACK_API_URL ?? DEFAULT_SLACK_API_URL });
  const isWrite = (tool: string) => parts.registry.get(tool)?.readOnly === false;
  const pagerdutyClient =
    pagerdutyToken &&
    from &&
    createPagerdutyNotesClient({
      token: pagerdutyToken,
      from,
      apiUrl: env.OPSPILOT_PAGERDUTY_API_URL ?? DEFAULT_PAGERDUTY_API_URL,
    });
  return combinedWriteBack({
    slack:
      slackClient && channel
        ? createSlackIncidentThreads({
            ...{ client: slackClient, channel, storage, publicUrl, isWrite, logger },
            onFailure: ({ update }) => onFailure?.({ target: "slack", update }),
          })
        : undefined,
    pagerduty: pagerdutyClient
      ? createPagerdutyIncidentNotes({
          ...{ client: pagerdutyClient, storage, publicUrl, logger },
          onFailure: ({ note }) => onFailure?.({ target: "pagerduty", update: note }),
        })
      : undefined,
  });
}

/** Where people open the page: `OPSPILOT_PUBLIC_URL`, else this server's address. */
export function publicUrlOf(env: Env): string {
  const host = env.HOST.includes(":") ? `[${env.HOST}]` : env.HOST;
  return env.OPSPILOT_PUBLIC_URL ?? `http://${host}:${env.PORT}/`;
}
