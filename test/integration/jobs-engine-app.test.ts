import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/config/env.js";
import { runningEngines } from "../../src/service/jobs/engine.js";
import { startFromEnv } from "../../src/server/start.js";
import { tsEntry } from "../fixtures/ts-children.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-jobs-app-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Every job a server runs with OPSPILOT_RETENTION_DAYS set, in registration order. */
const EVERY_JOB = ["incidents", "queue", "approval-expiry", "takeover", "retention"];
/** A server also probes its dependencies on the engine, for its /metrics. */
const SERVER_JOBS = ["incidents", "queue", "approval-expiry", "takeover", "dependency-probes", "retention"];

const PROMTOOL = "/usr/bin/promtool";

/** Scrapes until every job's first run is counted, or the deadline passes. */
async function scrapeUntilEveryJobRan(url: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await (
      await fetch(`${url}/metrics`, { headers: { authorization: "Bearer scrape-token-0001" } })
    ).text();
    if (
      SERVER_JOBS.every((job) => text.includes(`opspilot_job_runs_total{job="${job}",outcome="ok"}`)) ||
      Date.now() > deadline
    )
      return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs test/fixtures/jobs-child.ts; resolves with what it printed and whether it exited by itself within `exitMs` of its last line. */
function runChild(args: string[], exitMs: number): Promise<{ lines: string[]; exited: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...tsEntry("test/fixtures/jobs-child.ts"), ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    const startWaiting = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve({ lines, exited: false, code: null });
      }, exitMs);
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      lines.push(...chunk.split("\n").filter(Boolean));
      // The clock starts at the child's last word: its JSON (kept open) or "closed".
      if (lines.at(-1) === "closed" || (args[1] === "keep" && lines.length > 0)) startWaiting();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ lines, exited: true, code });
    });
  });
}

describe("the app's background engine", { timeout: 60_000 }, () => {
  it("is the one engine a started server runs, with every job, each run and counted, and it stops with the server", async () => {
    expect(runningEngines()).toEqual([]);
    const server = await startFromEnv(
      loadEnv({
        OPSPILOT_DB: join(directory, "server.sqlite"),
        PORT: "0",
        OPSPILOT_RETENTION_DAYS: "30",
        OPSPILOT_METRICS_TOKEN: "scrape-token-0001",
        OPSPILOT_LOG_LEVEL: "silent",
      }),
    );
    let stopped = false;
    try {
      const engines = runningEngines();
      expect(engines).toHaveLength(1);
      expect(engines[0]!.jobs()).toEqual(SERVER_JOBS);
      const text = await scrapeUntilEveryJobRan(server.url);
      for (const job of SERVER_JOBS) expect(text).toContain(`opspilot_job_runs_total{job="${job}",outcome="ok"} 1`);
      expect(text).toContain("# TYPE opspilot_job_failures_total counter");
      if (existsSync(PROMTOOL)) {
        const checked = spawnSync(PROMTOOL, ["check", "metrics"], { input: text, encoding: "utf8" });
        expect(`${checked.stdout}${checked.stderr}`).toBe("");
        expect(checked.status).toBe(0);
      }
      await server.close();
      stopped = true;
      expect(runningEngines()).toEqual([]);
    } finally {
      if (!stopped) await server.close();
    }
  });

  it("leaves nothing running once the app closes: a process that opened, started and closed it exits on its own", async () => {
    const closed = await runChild([join(directory, "closed.sqlite")], 5_000);
    expect(closed).toEqual({ lines: [JSON.stringify(EVERY_JOB), "closed"], exited: true, code: 0 });
  });

  it("keeps a process alive while its jobs run: the same process that never closes the app does not exit", async () => {
    // What makes the test above able to fail: the engine's clock holds the process until it stops.
    const kept = await runChild([join(directory, "kept.sqlite"), "keep"], 3_000);
    expect(kept).toEqual({ lines: [JSON.stringify(EVERY_JOB)], exited: false, code: null });
  });
});
