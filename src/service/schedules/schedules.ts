import type { ScheduleConfig } from "../../config/schedules-schema.js";
import type { RunUser } from "../../contracts/user.js";
import type { JobDefinition } from "../jobs/job.js";
import type { ChatWebhookFormat } from "../notices/chat-webhook-body.js";
import { createWebhookDelivery } from "../notices/webhook-delivery.js";
import type { Logger } from "../observability/logger.js";
import type { Runtime } from "../runtime/runtime.js";
import type { ScheduleFindings } from "./schedule-findings.js";
import { scheduleJob } from "./schedule-job.js";
import { scheduleWebhookBody, type ScheduleNotice } from "./schedule-notice.js";

/** What the config's schedules become jobs with. */
export interface ScheduleJobsOptions {
  /** The config file's `schedules`. */
  schedules: readonly ScheduleConfig[];
  /** Who runs a schedule that names no user or role (`OPSPILOT_ALERT_USER`). */
  defaultUser: RunUser;
  runtime: Pick<Runtime, "startRun" | "recoverRun">;
  threads: { createThread(threadId: string, userId: string): Promise<void> };
  /** Where notices go (`OPSPILOT_INCIDENT_WEBHOOK`, its format); none: no notices. */
  webhook?: { url: string; format: "json" | ChatWebhookFormat };
  /** Base URL of the web page, for the notices' thread link. */
  publicUrl: string;
  /** The incidents findings open and clear (for schedules with `incident: true`). */
  findings?: Pick<ScheduleFindings, "clear">;
  logger: Logger;
}

/** The configured schedules' jobs, and the wait for the runs they follow. */
export interface ScheduleJobs {
  jobs: JobDefinition[];
  /** Resolves once every run started so far was followed to its end or pause and its notice sent or given up. */
  idle(): Promise<void>;
}

/** One background job per configured schedule, each sending its notices to the incident webhook. */
export function scheduleJobs(options: ScheduleJobsOptions): ScheduleJobs {
  const { webhook, logger } = options;
  const delivery = createWebhookDelivery({ logger });
  const notify = webhook
    ? async (notice: ScheduleNotice) => {
        const outcome = await delivery.post(webhook.url, scheduleWebhookBody(notice, webhook.format));
        if (!outcome.ok)
          logger.error(
            `schedule ${notice.schedule}: could not announce the ${notice.event === "paused" ? "pause" : "answer"} of run ${notice.runId} (${outcome.failure})`,
          );
      }
    : undefined;
  const following = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    following.add(work);
    void work.finally(() => following.delete(work));
  };
  return {
    jobs: options.schedules.map((schedule) => scheduleJob({ ...options, schedule, notify, track })),
    idle: async () => {
      while (following.size > 0) await Promise.all([...following]);
    },
  };
}
