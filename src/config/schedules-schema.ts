import { Cron } from "croner";
import { z } from "zod";
import { KNOWN_ROLES } from "../contracts/user.js";

/** A schedule's name: it names the schedule's job and its runs' threads (`schedule-<name>-<due time>`). */
const SCHEDULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** An opspilot user id, as `OPSPILOT_API_TOKENS` spells them. */
const USER_ID = /^[A-Za-z0-9._@-]+$/;

/** What is wrong with `timezone` as an IANA time zone, or undefined when the runtime knows it. */
export function timezoneProblem(timezone: string): string | undefined {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
    return undefined;
  } catch {
    return `${JSON.stringify(timezone)} is not an IANA time zone (such as "Europe/Berlin" or "UTC")`;
  }
}

/** What is wrong with `expression` as a cron expression croner reads, or undefined when it has due times. */
export function cronProblem(expression: string): string | undefined {
  try {
    // Paused and without a callback: croner only reads the pattern, it starts no timer.
    const cron = new Cron(expression, { paused: true, timezone: "UTC" });
    if (cron.nextRun() === null) return `${JSON.stringify(expression)} is never due`;
    return undefined;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, "");
    return `${JSON.stringify(expression)} is not a cron expression (${reason})`;
  }
}

/** One scheduled investigation: a question asked on a clock, as a thread of its own. */
export const ScheduleSchema = z
  .object({
    name: z
      .string()
      .regex(SCHEDULE_NAME, { error: "must be a short name (letters, digits, '.', '_' and '-')" })
      .describe("Unique name of the schedule; its runs' thread titles and ids carry it"),
    cron: z
      .string()
      .min(1)
      .describe(
        'When it is due: five fields (minute hour day month weekday, e.g. "0 9 * * 1-5") or six with seconds first, read by croner',
      ),
    timezone: z
      .string()
      .min(1)
      .default("UTC")
      .describe('The IANA time zone the cron expression is read in (e.g. "Europe/Berlin"; UTC by default)'),
    message: z.string().min(1).describe("The question each run asks, as a person would type it"),
    user: z
      .string()
      .regex(USER_ID, { error: "must be an opspilot user id (letters, digits, . _ @ -)" })
      .optional()
      .describe(
        "Who the runs act as and whose threads they are; by default OPSPILOT_ALERT_USER, whose threads the on-call team shares",
      ),
    role: z
      .enum(KNOWN_ROLES, { error: `must be one of ${KNOWN_ROLES.join(", ")}` })
      .optional()
      .describe("The role the runs act with, which decides their tools (by default OPSPILOT_ALERT_USER's role)"),
    notify: z
      .boolean()
      .default(true)
      .describe(
        "true: each run's answer and each of its pauses are posted to OPSPILOT_INCIDENT_WEBHOOK (when set); false: they stay on the thread",
      ),
    incident: z
      .boolean()
      .default(false)
      .describe(
        "true: a run that finds a problem reports it (report_finding) and opens an incident, one per schedule while open; the next run that answers without a finding resolves it",
      ),
  })
  .strict()
  .superRefine((schedule, context) => {
    if (schedule.incident && schedule.user !== undefined)
      context.addIssue({
        code: "custom",
        path: ["user"],
        message: `schedule ${schedule.name} opens incidents, so it runs as OPSPILOT_ALERT_USER, whose threads the on-call team shares: leave "user" out`,
      });
    const cron = cronProblem(schedule.cron);
    if (cron) context.addIssue({ code: "custom", path: ["cron"], message: `schedule ${schedule.name}: ${cron}` });
    const timezone = timezoneProblem(schedule.timezone);
    if (timezone)
      context.addIssue({ code: "custom", path: ["timezone"], message: `schedule ${schedule.name}: ${timezone}` });
  });

/** `schedules`: the scheduled investigations, each name once. */
export const SchedulesSchema = z.array(ScheduleSchema).superRefine((schedules, context) => {
  const seen = new Set<string>();
  schedules.forEach((schedule, index) => {
    if (seen.has(schedule.name))
      context.addIssue({ code: "custom", path: [index, "name"], message: `${schedule.name} is used twice` });
    seen.add(schedule.name);
  });
});

/** One validated schedule. */
export type ScheduleConfig = z.infer<typeof ScheduleSchema>;
