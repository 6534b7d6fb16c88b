import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { REPO_ROOT, tsEntry } from "../fixtures/ts-children.js";

let directory: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "opspilot-schedules-"));
});
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Writes a config file holding these schedules and returns its path. */
function configWith(name: string, schedules: unknown[]): string {
  const path = join(directory, `${name}.json`);
  writeFileSync(path, JSON.stringify({ schedules }));
  return path;
}

/** The server `npm start` runs, as a process of its own. */
function serverProcess(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, tsEntry("src/main.ts"), {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: "0", OPSPILOT_LOG_LEVEL: "error", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

/** Stops a server with SIGTERM (it drains its jobs) and waits for it to exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

describe("a bad schedule at start-up", () => {
  /** Starts a server with the config and returns its exit code and what it printed on stderr. */
  async function refusedStart(config: string): Promise<{ code: number | null; stderr: string }> {
    const child = serverProcess({ OPSPILOT_CONFIG: config, OPSPILOT_DB: join(directory, "refused.sqlite") });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    return { code, stderr };
  }

  it("stops start-up with one line naming the schedule and its cron expression, exit code 2", async () => {
    const config = configWith("bad-cron", [{ name: "nightly", cron: "0 25 * * *", message: "check the backups" }]);
    expect(await refusedStart(config)).toEqual({
      code: 2,
      stderr: `opspilot: ${config}: schedules[0].cron: schedule nightly: "0 25 * * *" is not a cron expression (Invalid value for hour: 25)\n`,
    });
  });

  it("stops start-up with one line naming the schedule and its time zone, exit code 2", async () => {
    const config = configWith("bad-zone", [
      { name: "morning", cron: "0 9 * * 1-5", timezone: "Europe/Berln", message: "check the error budget" },
    ]);
    expect(await refusedStart(config)).toEqual({
      code: 2,
      stderr: `opspilot: ${config}: schedules[0].timezone: schedule morning: "Europe/Berln" is not an IANA time zone (such as "Europe/Berlin" or "UTC")\n`,
    });
  });
});

describe.skipIf(skipPostgres)(
  "scheduled investigations across processes on one PostgreSQL",
  { timeout: 480_000 },
  () => {
    let cluster: PostgresCluster;
    let pool: pg.Pool;
    let started = 0;

    beforeAll(async () => {
      cluster = await startPostgresCluster();
      pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
    });
    afterAll(async () => {
      await pool?.end();
      await cluster?.stop();
    });

    /** Starts a server on the shared database and resolves once it listens (its engine has started). */
    async function server(config: string): Promise<ChildProcess> {
      started += 1;
      const child = serverProcess({
        DATABASE_URL: cluster.url,
        OPSPILOT_DB: join(directory, `server-${started}.sqlite`),
        OPSPILOT_CONFIG: config,
      });
      child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
      const lines = createInterface({ input: child.stdout! });
      await new Promise<void>((resolve, reject) => {
        lines.on("line", (line) => line.startsWith("opspilot is listening") && resolve());
        child.once("exit", (code) => reject(new Error(`server ${started} exited with ${code} before it listened`)));
      });
      return child;
    }

    /** Each run thread of the schedule: its due time and how many runs its records hold. */
    async function runs(name: string): Promise<Array<{ dueAt: number; runs: number }>> {
      const { rows } = await pool.query<{ thread_id: string; runs: string }>(
        `SELECT t.thread_id, (SELECT count(*) FROM opspilot_runs r WHERE r.thread_id = t.thread_id) AS runs
       FROM opspilot_threads t WHERE t.thread_id LIKE $1`,
        [`schedule-${name}-%`],
      );
      return rows
        .map((row) => ({ dueAt: Number(row.thread_id.slice(`schedule-${name}-`.length)), runs: Number(row.runs) }))
        .sort((a, b) => a.dueAt - b.dueAt);
    }

    async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error("timed out waiting");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    /** Waits until every thread of the schedule holds its finished run. */
    async function settled(name: string): Promise<void> {
      await until(async () => {
        const { rows } = await pool.query(
          "SELECT 1 FROM opspilot_runs WHERE thread_id LIKE $1 AND finished_at IS NULL",
          [`schedule-${name}-%`],
        );
        return rows.length === 0;
      }, 20_000);
    }

    it("runs a schedule due every 3 seconds once per due time between two processes, none missed", async () => {
      const everyMs = 3_000;
      const config = configWith("every-3s", [
        { name: "tick", cron: "*/3 * * * * *", message: "check payment-service's error budget" },
      ]);
      const [a, b] = await Promise.all([server(config), server(config)]);
      const bothUp = Date.now();
      await until(async () => (await runs("tick")).filter((run) => run.dueAt > bothUp).length >= 13, 90_000);
      const stopping = Date.now();
      await Promise.all([stop(a), stop(b)]);

      // The due times settled before the stop began (the last ones may be cut by it: shutdown-handoff covers those).
      const dues = (await runs("tick")).filter((run) => run.dueAt > bothUp && run.dueAt < stopping - everyMs);
      // Consecutive due times from the first to the last: none missed, none twice (one thread each), one run on each.
      expect(dues.map((run) => [run.dueAt, run.runs])).toEqual(
        Array.from({ length: dues.length }, (_, index) => [dues[0]!.dueAt + index * everyMs, 1]),
      );
      expect(dues.length).toBeGreaterThanOrEqual(11);
    });

    it("runs a due time missed while every process was down once at start, not once per due time missed", async () => {
      const everyMs = 4_000;
      const config = configWith("gap", [{ name: "gap", cron: "*/4 * * * * *", message: "check the pods" }]);
      const first = await server(config);
      await until(async () => (await runs("gap")).length >= 1, 30_000);
      await stop(first);
      await settled("gap");
      const lastRun = (await runs("gap")).at(-1)!.dueAt;
      // Down across at least two due times.
      await new Promise((resolve) => setTimeout(resolve, 2.5 * everyMs));
      const restartingAt = Date.now();
      const second = await server(config);
      const listeningAt = Date.now();
      // The first run after the restart (the machine may be slow), then a moment for any other run at start.
      await until(async () => (await runs("gap")).some((run) => run.dueAt > lastRun), 30_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const caughtUp = (await runs("gap")).filter((run) => run.dueAt > lastRun && run.dueAt <= listeningAt);
      await stop(second);
      const missed = Math.floor(restartingAt / everyMs) * everyMs;
      expect(missed - lastRun).toBeGreaterThanOrEqual(2 * everyMs);
      // One run for the latest due time before the engine started (one may have fallen due while it started).
      expect(caughtUp).toHaveLength(1);
      expect(caughtUp[0]!.dueAt).toBeGreaterThanOrEqual(missed);
      expect(caughtUp[0]!.runs).toBe(1);
    });

    // Five and a half minutes of waiting, which the other files' work overlaps.
    it("runs a schedule due every minute 5 times in 5 minutes between two processes", async () => {
      const config = configWith("every-minute", [
        { name: "minutely", cron: "* * * * *", message: "check payment-service's error budget" },
      ]);
      const [a, b] = await Promise.all([server(config), server(config)]);
      const bothUp = Date.now();
      const window = { from: Math.ceil(bothUp / 60_000) * 60_000, to: Math.ceil(bothUp / 60_000) * 60_000 + 300_000 };
      await until(async () => (await runs("minutely")).some((run) => run.dueAt >= window.to), 400_000);
      await Promise.all([stop(a), stop(b)]);
      const dues = (await runs("minutely")).filter((run) => run.dueAt >= window.from && run.dueAt < window.to);
      console.log(
        `[schedules] every minute, two processes: ${dues.length} runs from ${new Date(window.from).toISOString()} to ${new Date(window.to).toISOString()}`,
      );
      expect(dues.map((run) => [run.dueAt, run.runs])).toEqual(
        Array.from({ length: 5 }, (_, index) => [window.from + index * 60_000, 1]),
      );
    });
  },
);
