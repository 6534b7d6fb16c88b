import type { Env } from "../config/env.js";
import { createExpiryWebhook, type ExpiryWebhook } from "../service/approvals/expiry-notice.js";
import { createIncidentReports, type IncidentAnswer, type IncidentReports } from "../service/incidents/reports.js";
import { createPauseWebhook, type PauseWebhook } from "../service/notices/pause-webhook.js";
import type { Logger } from "../service/observability/logger.js";
import type { Storage } from "../storage/types.js";

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
 * `OPSPILOT_INCIDENT_WEBHOOK`.
 */
export function incidentReportsOf(
  env: Env,
  parts: { storage: Storage; logger: Logger; onAnswer: (report: IncidentAnswer) => Promise<void> },
): IncidentReports {
  const url = env.OPSPILOT_INCIDENT_WEBHOOK;
  return createIncidentReports({
    ...parts,
    webhook: url ? { url, format: env.OPSPILOT_INCIDENT_WEBHOOK_FORMAT, publicUrl: publicUrlOf(env) } : undefined,
  });
}

/** Where people open the page: `OPSPILOT_PUBLIC_URL`, else this server's address. */
export function publicUrlOf(env: Env): string {
  const host = env.HOST.includes(":") ? `[${env.HOST}]` : env.HOST;
  return env.OPSPILOT_PUBLIC_URL ?? `http://${host}:${env.PORT}/`;
}
