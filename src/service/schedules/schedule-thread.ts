import type { ScheduleConfig } from "../../config/schedules-schema.js";

/** The thread of one run of a schedule: the same in every process, so a due time has one thread. */
export function scheduleThreadId(name: string, dueAt: number): string {
  return `schedule-${name}-${dueAt}`;
}

/** The background job of a schedule (the key of its claims and of its last due time). */
export function scheduleJobName(name: string): string {
  return `schedule:${name}`;
}

/** The due time as a person in the schedule's zone reads it: `2025-01-06 09:00 Europe/Berlin` (seconds when not :00). */
export function localDueTime(dueAt: number, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", {
      timeZone: timezone,
      hourCycle: "h23",
      ...{ year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" },
    })
      .formatToParts(new Date(dueAt))
      .map((part) => [part.type, part.value]),
  );
  const seconds = parts.second === "00" ? "" : `:${parts.second}`;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}${seconds} ${timezone}`;
}

/**
 * The message a run asks: the schedule's name and due time first, so the thread's title (its
 * first message, cut) names both, then the schedule's question.
 */
export function scheduleMessage(
  schedule: Pick<ScheduleConfig, "name" | "timezone" | "message">,
  dueAt: number,
): string {
  return `Scheduled check ${schedule.name}, due ${localDueTime(dueAt, schedule.timezone)}: ${schedule.message}`;
}

/** The schedule and due time of a thread `scheduleThreadId` named, or undefined for any other thread. */
export function scheduleRunOf(threadId: string): { name: string; dueAt: number } | undefined {
  const match = /^schedule-(.+)-(\d{1,15})$/.exec(threadId);
  return match ? { name: match[1]!, dueAt: Number(match[2]) } : undefined;
}
