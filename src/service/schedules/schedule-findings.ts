import type { ScheduleConfig } from "../../config/schedules-schema.js";
import { ToolError } from "../../contracts/errors.js";
import type { RunUser } from "../../contracts/user.js";
import type { Storage } from "../../storage/types.js";
import type { Finding, FindingReport } from "../../tools/report-finding.js";
import type { ToolContext } from "../../tools/types.js";
import { fitMessage, type AlertDelivery } from "../incidents/alert-delivery.js";
import type { Incidents } from "../incidents/incidents.js";
import { threadLink } from "../notices/pause-webhook-body.js";
import { localDueTime, scheduleRunOf } from "./schedule-thread.js";

/** The incident source of scheduled checks' findings; the group is the schedule's name. */
export const SCHEDULE_SOURCE = "schedule";

/** What the schedules that open incidents need. */
export interface ScheduleFindingsOptions {
  /** The configured schedules; only those with `incident: true` open incidents. */
  schedules: readonly ScheduleConfig[];
  /** The incidents service the findings are delivered to, as alerts are. */
  incidents: Pick<Incidents, "deliver">;
  storage: Pick<Storage, "incidents">;
  /** Who the schedules' runs act as (`OPSPILOT_ALERT_USER`): only their runs report findings. */
  user: RunUser;
  /** Base URL of the web page, for the link to the check's thread. */
  publicUrl: string;
}

/** Findings of scheduled checks as incidents: `report` opens one, `clear` resolves it. */
export interface ScheduleFindings {
  /** `report_finding`'s effect: opens the schedule's incident (or finds it open); refuses other threads. */
  report(finding: Finding, ctx: Pick<ToolContext, "threadId" | "user">): Promise<FindingReport>;
  /** After a run of the schedule answered without a finding: resolves its open incident (its id), if any. */
  clear(schedule: ScheduleConfig, dueAt: number, threadId: string): Promise<string | undefined>;
}

/**
 * A scheduled check that found a problem opens an incident like an alert does (source `schedule`,
 * the schedule's name as its group, one fingerprint while it fires), with its own investigation
 * thread; repeated findings while it is open change nothing, and the schedule's next run that
 * answers without a finding resolves it.
 */
export function createScheduleFindings(options: ScheduleFindingsOptions): ScheduleFindings {
  const opening = new Map(options.schedules.filter((schedule) => schedule.incident).map((s) => [s.name, s]));

  /** What each delivery of the schedule's group carries, stamped now. */
  function delivery(schedule: ScheduleConfig, status: AlertDelivery["status"]) {
    const now = new Date().toISOString();
    return {
      source: SCHEDULE_SOURCE,
      groupKey: schedule.name,
      status,
      labels: { schedule: schedule.name },
      startsAt: now,
      occurredAt: now,
      fingerprints: status === "firing" ? [`${SCHEDULE_SOURCE}:${schedule.name}`] : [],
    };
  }

  /** The run a message names: its due time as the schedule's zone reads it, and its thread with the link. */
  function runWords(schedule: ScheduleConfig, dueAt: number, threadId: string) {
    return {
      due: localDueTime(dueAt, schedule.timezone),
      check: `${threadId} (${threadLink(options.publicUrl, threadId)})`,
    };
  }

  return {
    async report(finding, ctx) {
      const run = scheduleRunOf(ctx.threadId);
      const schedule = run && opening.get(run.name);
      if (!run || !schedule || ctx.user.id !== options.user.id)
        throw new ToolError(
          "permission_denied",
          "report_finding works only in the run of a schedule that opens incidents; answer the user instead.",
        );
      const { due, check } = runWords(schedule, run.dueAt, ctx.threadId);
      const base = delivery(schedule, "firing");
      const message = [
        `Scheduled check ${schedule.name} (due ${due}) reported a finding: ${finding.title}`,
        `Severity: ${finding.severity}`,
        `What it found: ${finding.summary}`,
        `The check's thread: ${check}`,
        "Investigate: confirm the finding, find its cause with the metrics, logs and runbooks, and say what should be done.",
      ].join("\n");
      const { incidentId, outcome } = await options.incidents.deliver({
        ...base,
        alertname: finding.title,
        severity: finding.severity,
        labels: { ...base.labels, severity: finding.severity },
        message: fitMessage(message),
      });
      return { incidentId, outcome: outcome === "opened" ? "opened" : "already_open" };
    },

    async clear(schedule, dueAt, threadId) {
      if (!opening.has(schedule.name)) return undefined;
      const { incident } = await options.storage.incidents.latestIncident(SCHEDULE_SOURCE, schedule.name);
      if (incident?.status !== "firing") return undefined;
      const { due, check } = runWords(schedule, dueAt, threadId);
      const { incidentId, outcome } = await options.incidents.deliver({
        ...delivery(schedule, "resolved"),
        alertname: incident.alertname,
        ...(incident.severity ? { severity: incident.severity } : {}),
        message: `Scheduled check ${schedule.name} (due ${due}) answered without a finding: the incident is resolved. Its thread: ${check}`,
      });
      return outcome === "resolved" ? incidentId : undefined;
    },
  };
}
