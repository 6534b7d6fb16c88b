import { afterEach, describe, expect, it, vi } from "vitest";
import { createJobEngine, EngineStoppedError, type JobEngine } from "../../src/service/jobs/engine.js";
import type { JobRunReport } from "../../src/service/jobs/job.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";

const opened: Array<{ close(): void }> = [];
const engines: JobEngine[] = [];

/** An engine over a fresh in-memory SQLite file, with what it logged and reported. */
function engineOnSqlite() {
  const sqlite = openSqlite(":memory:");
  opened.push(sqlite);
  const logged: string[] = [];
  const reports: JobRunReport[] = [];
  const jobs = createJobEngine({
    claims: sqlite.storage.jobClaims,
    logger: { error: (message) => logged.push(message) },
    onRun: (report) => reports.push(report),
  });
  engines.push(jobs);
  return { jobs, logged, reports, claims: sqlite.storage.jobClaims };
}

afterEach(async () => {
  for (const jobs of engines.splice(0)) await jobs.stop({ drainMs: 0 });
  for (const sqlite of opened.splice(0)) sqlite.close();
  vi.useRealTimers();
});

describe("the background engine", () => {
  it("runs an interval job at every multiple of its interval, starting with the period under way when asked", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T00:00:00.250Z") });
    const { jobs, reports } = engineOnSqlite();
    const ranAt: string[] = [];
    jobs.register({
      name: "tick",
      schedule: { kind: "every", ms: 1_000, atStart: true },
      run: async () => void ranAt.push(new Date().toISOString()),
    });
    jobs.start();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reports.map((report) => new Date(report.dueAt).toISOString())).toEqual([
      "2025-01-01T00:00:00.000Z",
      "2025-01-01T00:00:01.000Z",
      "2025-01-01T00:00:02.000Z",
      "2025-01-01T00:00:03.000Z",
    ]);
    // The period under way runs at once; the others on their time.
    expect(ranAt).toEqual([
      "2025-01-01T00:00:00.250Z",
      "2025-01-01T00:00:01.000Z",
      "2025-01-01T00:00:02.000Z",
      "2025-01-01T00:00:03.000Z",
    ]);
  });

  it("runs a cron job at the expression's times in its time zone", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-03-10T00:59:00Z") });
    const { jobs, reports } = engineOnSqlite();
    // Kolkata is UTC+5:30: its full hours are at half past in UTC.
    jobs.register({
      name: "hourly-in-kolkata",
      schedule: { kind: "cron", expression: "0 * * * *", timezone: "Asia/Kolkata" },
      run: async () => undefined,
    });
    jobs.start();
    await vi.advanceTimersByTimeAsync(2 * 3_600_000);
    expect(reports.map((report) => [new Date(report.dueAt).toISOString(), report.outcome])).toEqual([
      ["2025-03-10T01:30:00.000Z", "ok"],
      ["2025-03-10T02:30:00.000Z", "ok"],
    ]);
  });

  it("runs the latest due time a catch-up job's run outlasted as soon as that run ends, folding older ones", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T00:00:00.500Z") });
    const { jobs, reports } = engineOnSqlite();
    const lasting = { check: [3_500, 7_000, 100], sweep: [3_500, 100, 100] };
    const ranAt: string[] = [];
    for (const [name, catchUp] of [
      ["check", true],
      ["sweep", false],
    ] as const)
      jobs.register({
        name,
        catchUp,
        schedule: { kind: "cron", expression: "*/3 * * * * *", timezone: "UTC" },
        run: async () => {
          const index = ranAt.filter((entry) => entry.startsWith(name)).length;
          ranAt.push(`${name} ${new Date().toISOString().slice(17, 21)}`);
          await new Promise((resolve) => setTimeout(resolve, lasting[name][index] ?? 100));
        },
      });
    jobs.start();
    await vi.advanceTimersByTimeAsync(14_000);
    const dues = (name: string) =>
      reports
        .filter((report) => report.job === name)
        .map((report) => new Date(report.dueAt).toISOString().slice(17, 23));
    // The 3.5 s run outlasted 06: it runs at once; the 7 s run outlasted 09 and 12: 12 runs, 09 is folded into it.
    expect(dues("check")).toEqual(["03.000", "06.000", "12.000"]);
    expect(ranAt.filter((entry) => entry.startsWith("check"))).toEqual(["check 03.0", "check 06.5", "check 13.5"]);
    // Without catchUp, a due time a run outlasted is folded into the next one to come.
    expect(dues("sweep")).toEqual(["03.000", "09.000", "12.000"]);
  });

  it("runs a delayed job once, at its time", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T00:00:00Z") });
    const { jobs, reports } = engineOnSqlite();
    jobs.register({
      name: "later",
      schedule: { kind: "at", at: Date.parse("2025-01-01T00:00:05Z") },
      run: async () => undefined,
    });
    jobs.start();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(reports).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reports.map((report) => new Date(report.dueAt).toISOString())).toEqual(["2025-01-01T00:00:05.000Z"]);
  });

  it("logs and counts a failing job once per run while the other jobs go on", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T00:00:00.500Z") });
    const { jobs, logged, reports } = engineOnSqlite();
    jobs.register({
      name: "broken",
      schedule: { kind: "every", ms: 1_000 },
      run: async () => {
        throw new Error("the database is gone");
      },
    });
    let healthy = 0;
    jobs.register({ name: "healthy", schedule: { kind: "every", ms: 1_000 }, run: async () => void (healthy += 1) });
    jobs.start();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(healthy).toBe(3);
    expect(logged).toEqual([
      "background job broken failed",
      "background job broken failed",
      "background job broken failed",
    ]);
    expect(reports.filter((report) => report.job === "broken").map((report) => report.outcome)).toEqual([
      "failed",
      "failed",
      "failed",
    ]);
    expect(reports.filter((report) => report.job === "broken")[0]!.error).toEqual(new Error("the database is gone"));
  });

  it("names its jobs and refuses a second job of the same name or a cron expression croner cannot read", () => {
    const { jobs } = engineOnSqlite();
    jobs.register({ name: "a", schedule: { kind: "every", ms: 1_000 }, run: async () => undefined });
    jobs.register({
      name: "b",
      schedule: { kind: "cron", expression: "*/5 * * * *", timezone: "UTC" },
      run: async () => undefined,
    });
    expect(jobs.jobs()).toEqual(["a", "b"]);
    expect(() => jobs.register({ name: "a", schedule: { kind: "every", ms: 5 }, run: async () => undefined })).toThrow(
      "a background job named a is registered already",
    );
    expect(() =>
      jobs.register({
        name: "c",
        schedule: { kind: "cron", expression: "every monday", timezone: "UTC" },
        run: async () => undefined,
      }),
    ).toThrow();
  });

  it("lets a running job finish when it stops, and runs nothing after", async () => {
    const { jobs, reports } = engineOnSqlite();
    let runs = 0;
    let release!: () => void;
    const entered = new Promise<void>((resolve) =>
      jobs.register({
        name: "slow",
        schedule: { kind: "every", ms: 20, atStart: true },
        run: async () => {
          runs += 1;
          resolve();
          await new Promise<void>((done) => (release = done));
        },
      }),
    );
    jobs.start();
    await entered;
    const stopped = jobs.stop({ drainMs: 5_000 });
    setTimeout(() => release(), 100);
    await stopped;
    expect(reports.map((report) => report.outcome)).toEqual(["ok"]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(runs).toBe(1);
  });

  it("aborts a job that outlasts the drain bound and gives its claim up, so another process may run that due time", async () => {
    const { jobs, reports, claims } = engineOnSqlite();
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    jobs.register({
      name: "stuck",
      schedule: { kind: "every", ms: 60_000, atStart: true },
      run: (signal) =>
        new Promise<void>((_resolve, reject) => {
          entered();
          signal.addEventListener("abort", () => reject(signal.reason as Error));
        }),
    });
    jobs.start();
    await started;
    await jobs.stop({ drainMs: 50 });
    expect(reports).toMatchObject([{ job: "stuck", outcome: "failed" }]);
    expect(reports[0]!.error).toBeInstanceOf(EngineStoppedError);
    const due = reports[0]!.dueAt;
    expect(await claims.claim({ job: "stuck", dueAt: due, leaseMs: 1_000 })).toMatchObject({ kind: "claimed" });
  });
});

describe("a per-process job", () => {
  it("runs in every process at each due time, while a claimed job runs in one of them", async () => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T00:00:00.250Z") });
    const sqlite = openSqlite(":memory:");
    opened.push(sqlite);
    const ran: string[] = [];
    for (const process of ["a", "b"]) {
      const jobs = createJobEngine({ claims: sqlite.storage.jobClaims, logger: { error: () => undefined } });
      engines.push(jobs);
      jobs.register({
        name: "probe",
        perProcess: true,
        schedule: { kind: "every", ms: 1_000, atStart: true },
        run: async (_signal, dueAt) => void ran.push(`probe ${process} ${dueAt % 10_000}`),
      });
      jobs.register({
        name: "sweep",
        schedule: { kind: "every", ms: 1_000, atStart: true },
        run: async (_signal, dueAt) => void ran.push(`sweep ${dueAt % 10_000}`),
      });
      jobs.start();
    }
    await vi.advanceTimersByTimeAsync(1_100);
    expect(ran.sort()).toEqual(["probe a 0", "probe a 1000", "probe b 0", "probe b 1000", "sweep 0", "sweep 1000"]);
    // No claim was asked for: the per-process job leaves nothing in the claims another process could see.
    expect(
      await sqlite.storage.jobClaims.claim({ job: "probe", dueAt: Date.parse("2025-01-01T00:00:00Z"), leaseMs: 1_000 }),
    ).toMatchObject({
      kind: "claimed",
    });
  });
});
