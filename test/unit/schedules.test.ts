import { afterEach, describe, expect, it, vi } from "vitest";
import { parseConfig } from "../../src/config/file.js";
import { ConfigError } from "../../src/contracts/errors.js";
import type { StreamEvent } from "../../src/contracts/events.js";
import { createJobEngine, type JobEngine } from "../../src/service/jobs/engine.js";
import type { JobRunReport } from "../../src/service/jobs/job.js";
import { dueTimes, latestDue } from "../../src/service/jobs/schedule.js";
import { scheduleJob } from "../../src/service/schedules/schedule-job.js";
import type { ScheduleNotice } from "../../src/service/schedules/schedule-notice.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";

const opened: Array<{ close(): void }> = [];
const engines: JobEngine[] = [];

afterEach(async () => {
  for (const jobs of engines.splice(0)) await jobs.stop({ drainMs: 0 });
  for (const sqlite of opened.splice(0)) sqlite.close();
  vi.useRealTimers();
});

/** The one line a config with these schedules is refused with, or "accepted". */
function verdict(schedules: unknown[]): string {
  try {
    parseConfig({ schedules }, {}, "opspilot.config.json");
    return "accepted";
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message;
  }
}

describe("schedules in the config file", () => {
  const base = { name: "payment-budget", cron: "0 9 * * 1-5", timezone: "Europe/Berlin", message: "check" };

  it("accepts five and six field expressions and fills the defaults", () => {
    const config = parseConfig({ schedules: [base, { name: "fast", cron: "*/5 * * * * *", message: "ping" }] }, {});
    expect(config.schedules).toEqual([
      { ...base, notify: true, incident: false },
      { name: "fast", cron: "*/5 * * * * *", timezone: "UTC", message: "ping", notify: true, incident: false },
    ]);
  });

  it("refuses a bad cron expression with one line naming the schedule and the expression", () => {
    expect(verdict([{ ...base, cron: "61 9 * * 1-5" }])).toBe(
      'opspilot.config.json: schedules[0].cron: schedule payment-budget: "61 9 * * 1-5" is not a cron expression (Invalid value for minute: 61)',
    );
    expect(verdict([{ ...base, cron: "0 9 * *" }])).toMatch(
      /^opspilot\.config\.json: schedules\[0\]\.cron: schedule payment-budget: "0 9 \* \*" is not a cron expression \([^\n]*\)$/,
    );
  });

  it("refuses an unknown time zone with one line naming the schedule and the zone", () => {
    expect(verdict([{ ...base, timezone: "Europe/Berlim" }])).toBe(
      'opspilot.config.json: schedules[0].timezone: schedule payment-budget: "Europe/Berlim" is not an IANA time zone (such as "Europe/Berlin" or "UTC")',
    );
  });

  it("refuses two schedules of one name", () => {
    expect(verdict([base, base])).toBe("opspilot.config.json: schedules[1].name: payment-budget is used twice");
  });
});

describe("the latest due time missed", () => {
  const everyFive = dueTimes({ kind: "cron", expression: "*/5 * * * * *", timezone: "UTC" });
  const t0 = Date.parse("2025-01-01T00:00:00Z");

  it("is the last due time after the last run and not after now", () => {
    expect(latestDue(everyFive, t0, t0 + 23_000)).toBe(t0 + 20_000);
    expect(latestDue(everyFive, t0, t0 + 20_000)).toBe(t0 + 20_000);
  });

  it("is none when no due time passed since the last run", () => {
    expect(latestDue(everyFive, t0, t0 + 4_999)).toBeUndefined();
  });

  it("is found in a few steps after a month of a schedule due every second", () => {
    const everySecond = dueTimes({ kind: "cron", expression: "* * * * * *", timezone: "UTC" });
    const started = performance.now();
    expect(latestDue(everySecond, t0, t0 + 30 * 86_400_000 + 500)).toBe(t0 + 30 * 86_400_000);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("a catch-up job of the engine", () => {
  function engine() {
    const sqlite = openSqlite(":memory:");
    opened.push(sqlite);
    const reports: JobRunReport[] = [];
    const jobs = createJobEngine({
      claims: sqlite.storage.jobClaims,
      logger: { error: () => undefined },
      onRun: (report) => reports.push(report),
    });
    engines.push(jobs);
    const register = () =>
      jobs.register({
        name: "schedule:check",
        schedule: { kind: "cron", expression: "0 * * * *", timezone: "UTC" },
        catchUp: true,
        run: async () => undefined,
      });
    return { jobs, reports, register, claims: sqlite.storage.jobClaims };
  }
  const iso = (reports: JobRunReport[]) => reports.map((report) => new Date(report.dueAt).toISOString());

  it("first runs at its next due time, not at start, when no process ever ran it", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T10:20:00Z") });
    const { jobs, reports, register } = engine();
    register();
    jobs.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reports).toEqual([]);
    await vi.advanceTimersByTimeAsync(40 * 60_000);
    expect(iso(reports)).toEqual(["2025-01-01T11:00:00.000Z"]);
  });

  it("runs once at start for the latest due time missed while no process ran, however many passed", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T10:20:00Z") });
    const { jobs, reports, register, claims } = engine();
    // The last run any process made was at 06:00; 07:00, 08:00, 09:00 and 10:00 passed with every process down.
    const last = await claims.claim({ job: "schedule:check", dueAt: Date.parse("2025-01-01T06:00:00Z"), leaseMs: 1 });
    if (last.kind === "claimed") await claims.finish("schedule:check", last.claimId);
    register();
    jobs.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(iso(reports)).toEqual(["2025-01-01T10:00:00.000Z"]);
    await vi.advanceTimersByTimeAsync(40 * 60_000);
    expect(iso(reports)).toEqual(["2025-01-01T10:00:00.000Z", "2025-01-01T11:00:00.000Z"]);
  });

  it("runs nothing at start when the last due time ran already", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T10:20:00Z") });
    const { jobs, reports, register, claims } = engine();
    const last = await claims.claim({ job: "schedule:check", dueAt: Date.parse("2025-01-01T10:00:00Z"), leaseMs: 1 });
    if (last.kind === "claimed") await claims.finish("schedule:check", last.claimId);
    register();
    jobs.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reports).toEqual([]);
  });
});

describe("a schedule's run", () => {
  const dueAt = Date.parse("2025-01-06T08:00:00Z");
  const schedule = {
    name: "payment-budget",
    cron: "0 9 * * 1-5",
    timezone: "Europe/Berlin",
    message: "check payment-service's error budget and the pods that restarted overnight",
    notify: true,
    incident: false,
  };

  it("asks its question on a thread of its own, named by the schedule and its due time, and sends the answer", async () => {
    const started: Array<{ threadId: string; message: string; user: unknown; messageId?: string }> = [];
    const created: string[] = [];
    const notices: ScheduleNotice[] = [];
    const stamp = { runId: "r1", seq: 1 };
    const following: Array<Promise<void>> = [];
    const logged: string[] = [];
    const job = scheduleJob({
      schedule,
      defaultUser: { id: "alertmanager", role: "operator" },
      runtime: {
        async startRun(request) {
          started.push(request);
          const events: StreamEvent[] = [
            { type: "assistant_message", messageId: "m1", content: "Budget 92% left; no restarts.", ...stamp },
            { type: "run_finished", stopReason: "final_answer", steps: 1, durationMs: 5, ...stamp, seq: 2 },
          ].map((event) => ({ ...event, threadId: request.threadId }) as StreamEvent);
          return (async function* () {
            yield* events;
          })();
        },
        recoverRun: () => Promise.reject(new Error("not expected")),
      },
      threads: { createThread: async (threadId, userId) => void created.push(`${threadId} ${userId}`) },
      notify: async (notice) => void notices.push(notice),
      publicUrl: "https://opspilot.example.com/",
      track: (run) => void following.push(run),
      logger: { error: (message) => void logged.push(message) },
    });
    expect(job).toMatchObject({ name: "schedule:payment-budget", catchUp: true });
    await job.run(new AbortController().signal, dueAt);
    await Promise.all(following);
    expect(logged).toEqual([]);
    const threadId = `schedule-payment-budget-${dueAt}`;
    expect(created).toEqual([`${threadId} alertmanager`]);
    expect(started).toEqual([
      {
        threadId,
        user: { id: "alertmanager", role: "operator" },
        messageId: `schedule:payment-budget:${dueAt}`,
        message:
          "Scheduled check payment-budget, due 2025-01-06 09:00 Europe/Berlin: check payment-service's error budget and the pods that restarted overnight",
      },
    ]);
    expect(notices).toEqual([
      {
        type: "schedule",
        event: "answered",
        schedule: "payment-budget",
        dueAt: "2025-01-06T08:00:00.000Z",
        threadId,
        runId: "r1",
        link: `https://opspilot.example.com/?thread=${threadId}`,
        stopReason: "final_answer",
        summary: "Budget 92% left; no restarts.",
      },
    ]);
  });
});
