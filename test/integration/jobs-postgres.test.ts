import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPostgresCluster, skipPostgres, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { tsEntry } from "../fixtures/ts-children.js";

/** One row of `job_test_runs`: a run's start or end in one of the processes. */
interface RunRow {
  job: string;
  due_at: string;
  process: string;
  phase: "started" | "finished";
}

describe.skipIf(skipPostgres)("background jobs across two processes on one PostgreSQL", { timeout: 90_000 }, () => {
  let cluster: PostgresCluster;
  let pool: pg.Pool;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
    await pool.query(
      "CREATE TABLE job_test_runs (job TEXT NOT NULL, due_at BIGINT NOT NULL, process TEXT NOT NULL, phase TEXT NOT NULL, at BIGINT NOT NULL)",
    );
  });
  afterEach(async () => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await pool.query("DELETE FROM job_test_runs");
  });
  afterAll(async () => {
    await pool?.end();
    await cluster?.stop();
  });

  /** Starts test/fixtures/jobs-pg-child.ts and resolves once its engine started. */
  async function startChild(name: string, mode: string, value: number): Promise<ChildProcess> {
    const args = [...tsEntry("test/fixtures/jobs-pg-child.ts"), cluster.url, name, mode, String(value)];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      lines.on("line", (line) => line === "ready" && resolve());
      child.once("exit", (code) => reject(new Error(`the ${name} process exited with ${code} before it was ready`)));
    });
    return child;
  }

  /** Stops a child with SIGTERM (its engine drains) and waits for it to exit. */
  async function stopChild(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }

  async function runs(job: string): Promise<RunRow[]> {
    const { rows } = await pool.query<RunRow>(
      "SELECT job, due_at, process, phase FROM job_test_runs WHERE job = $1 ORDER BY due_at, at, phase DESC",
      [job],
    );
    return rows;
  }

  async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error("timed out waiting");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("runs each due time of a job exactly once between them, none missed", async () => {
    const everyMs = 400;
    const [a, b] = await Promise.all([startChild("a", "tick", everyMs), startChild("b", "tick", everyMs)]);
    // Both are up: from here on both compete for every due time.
    const since = Date.now();
    await until(async () => (await runs("tick")).filter((row) => Number(row.due_at) > since).length >= 2 * 12, 30_000);
    await Promise.all([stopChild(a), stopChild(b)]);

    const all = await runs("tick");
    const started = all.filter((row) => row.phase === "started");
    const dues = started.map((row) => Number(row.due_at));
    // No due time started twice, in either process.
    expect(new Set(dues).size).toBe(dues.length);
    // None missed: consecutive multiples of the interval from the first to the last.
    expect(dues).toEqual(Array.from({ length: dues.length }, (_, index) => dues[0]! + index * everyMs));
    expect(dues.length).toBeGreaterThanOrEqual(12);
    // Every run that started also finished, in the process that started it.
    const finished = all.filter((row) => row.phase === "finished");
    expect(finished.map((row) => [row.due_at, row.process])).toEqual(started.map((row) => [row.due_at, row.process]));
  });

  it("takes over a job whose process was killed while running it: the other process runs that due time", async () => {
    const at = Date.now() + 1_000;
    const victim = await startChild("victim", "once-hang", at);
    await until(async () => (await runs("once")).length === 1, 15_000);
    expect(await runs("once")).toEqual([{ job: "once", due_at: String(at), process: "victim", phase: "started" }]);

    const survivor = await startChild("survivor", "once", at);
    // While the victim lives and renews its claim, the survivor leaves the job alone.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await runs("once")).toHaveLength(1);

    const killedAt = Date.now();
    victim.kill("SIGKILL");
    await until(async () => (await runs("once")).length === 3, 15_000);
    // Within the claim's lease (1.5 s) and the retry after it.
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    expect(await runs("once")).toEqual([
      { job: "once", due_at: String(at), process: "victim", phase: "started" },
      { job: "once", due_at: String(at), process: "survivor", phase: "started" },
      { job: "once", due_at: String(at), process: "survivor", phase: "finished" },
    ]);
    await stopChild(survivor);
  });
});
