import type { ScheduleConfig } from "../../config/schedules-schema.js";
import type { StreamEvent } from "../../contracts/events.js";
import { ThreadUnfinishedError } from "../../contracts/errors.js";
import type { RunUser } from "../../contracts/user.js";
import { answerSummary, pauseSummary } from "../incidents/notice-body.js";
import type { JobDefinition } from "../jobs/job.js";
import { threadLink } from "../notices/pause-webhook-body.js";
import { MessageAlreadyPostedError } from "../queue/queued-plan.js";
import type { Logger } from "../observability/logger.js";
import type { Runtime } from "../runtime/runtime.js";
import type { ScheduleFindings } from "./schedule-findings.js";
import type { ScheduleNotice } from "./schedule-notice.js";
import { scheduleJobName, scheduleMessage, scheduleThreadId } from "./schedule-thread.js";

/** What one schedule's job needs. */
export interface ScheduleJobOptions {
  schedule: ScheduleConfig;
  /** Who runs it when the schedule names no user or role (`OPSPILOT_ALERT_USER`). */
  defaultUser: RunUser;
  runtime: Pick<Runtime, "startRun" | "recoverRun">;
  /** Creates the run's thread, owned by the run's user (a no-op when it exists). */
  threads: { createThread(threadId: string, userId: string): Promise<void> };
  /** Where a run's answer and pauses go when the schedule's `notify` is on; none: they stay on the thread. */
  notify?: (notice: ScheduleNotice) => Promise<void>;
  /** Base URL of the web page, for the notices' thread link. */
  publicUrl: string;
  /** Resolves the schedule's open incident after a run that answered without reporting a finding (`incident: true`). */
  findings?: Pick<ScheduleFindings, "clear">;
  /** Keeps a run followed in the background until it settles (it never rejects). */
  track(following: Promise<void>): void;
  logger: Logger;
}

/** The user a schedule's runs act as: its `user` and `role`, each defaulting to `defaultUser`'s. */
export function scheduleUser(schedule: ScheduleConfig, defaultUser: RunUser): RunUser {
  return { id: schedule.user ?? defaultUser.id, role: schedule.role ?? defaultUser.role };
}

/**
 * The job of one schedule: at each due time of its cron expression in its time zone, one process
 * of all starts a run on a thread of its own (`schedule-<name>-<due time>`) as the schedule's
 * user; the job is done once the run started, and the run is followed in the background to its
 * end or its pause, whose notice goes out when `notify` is on. A
 * schedule first runs at its next due time; a due time missed while no process ran runs once at
 * start (`catchUp`). A due time run again after a process died mid-run starts nothing new: the
 * thread holds its message already, and a run cut mid-step is recovered.
 */
export function scheduleJob(options: ScheduleJobOptions): JobDefinition {
  const { schedule, runtime } = options;
  const user = scheduleUser(schedule, options.defaultUser);

  async function start(threadId: string, dueAt: number): Promise<AsyncIterable<StreamEvent> | undefined> {
    await options.threads.createThread(threadId, user.id);
    const message = scheduleMessage(schedule, dueAt);
    try {
      return await runtime.startRun({
        threadId,
        message,
        user,
        messageId: `${scheduleJobName(schedule.name)}:${dueAt}`,
      });
    } catch (error) {
      if (error instanceof MessageAlreadyPostedError) return undefined;
      if (error instanceof ThreadUnfinishedError) return runtime.recoverRun(threadId, user);
      throw error;
    }
  }

  async function send(event: StreamEvent, dueAt: number, answer: string): Promise<void> {
    if (!options.notify || !schedule.notify) return;
    if (event.type !== "loop_interrupt" && event.type !== "run_finished") return;
    const paused = event.type === "loop_interrupt";
    await options.notify({
      type: "schedule",
      event: paused ? "paused" : "answered",
      schedule: schedule.name,
      dueAt: new Date(dueAt).toISOString(),
      threadId: event.threadId,
      runId: event.runId,
      link: threadLink(options.publicUrl, event.threadId),
      stopReason: paused ? "interrupted" : event.stopReason,
      summary: paused ? pauseSummary(event) : answerSummary(answer),
    });
  }

  /**
   * Reads the run's events to its end or its pause, sending what it came to; a run that answered
   * without reporting a finding resolves the schedule's open incident. Failures are logged.
   */
  async function follow(events: AsyncIterable<StreamEvent>, dueAt: number): Promise<void> {
    let answer = "";
    let found = false;
    for await (const event of events) {
      if (event.type === "assistant_message") answer = event.content;
      if (event.type === "tool_result" && event.tool === "report_finding" && event.ok) found = true;
      if (event.type === "loop_interrupt" || (event.type === "run_finished" && event.stopReason !== "interrupted"))
        await send(event, dueAt, answer);
      if (event.type === "run_finished" && event.stopReason === "final_answer" && !found && options.findings)
        await options.findings.clear(schedule, dueAt, event.threadId);
    }
  }

  return {
    name: scheduleJobName(schedule.name),
    schedule: { kind: "cron", expression: schedule.cron, timezone: schedule.timezone },
    catchUp: true,
    async run(_signal, dueAt) {
      const events = await start(scheduleThreadId(schedule.name, dueAt), dueAt);
      // The due time is done once its run started: a run longer than the schedule's period never holds the next one back.
      if (events)
        options.track(
          follow(events, dueAt).catch((error: unknown) =>
            options.logger.error(
              `schedule ${schedule.name}: the run of ${new Date(dueAt).toISOString()} failed`,
              error,
            ),
          ),
        );
    },
  };
}
