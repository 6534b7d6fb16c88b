import { describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { pruneSqlite } from "../../../src/storage/retention/sqlite-prune.js";

const DAY = 86_400_000;

describe("prune on SQLite", () => {
  it("removes daily usage before the cut-off's day and the stored limits of runs it removes", () => {
    const backend = openSqlite(":memory:");
    const { db } = backend;
    const now = Date.UTC(2026, 10, 30, 12);
    const insertRun = db.prepare(
      "INSERT INTO opspilot_runs (run_id, thread_id, user_id, started_at, finished_at, stop_reason) VALUES (?, ?, 'u', ?, ?, ?)",
    );
    insertRun.run("old-run", "t1", now - 40 * DAY, now - 40 * DAY, "final_answer");
    insertRun.run("new-run", "t1", now - DAY, now - DAY, "final_answer");
    const insertLimits = db.prepare(
      "INSERT INTO opspilot_run_limits (run_id, thread_id, limits, created_at) VALUES (?, 't1', '{}', ?)",
    );
    insertLimits.run("old-run", now - 40 * DAY);
    insertLimits.run("new-run", now - DAY);
    const insertUsage = db.prepare(
      "INSERT INTO opspilot_usage (user_id, day, runs, tokens, cost_usd) VALUES (?, ?, 1, 10, 0)",
    );
    insertUsage.run("u", "2026-10-01");
    insertUsage.run("u", "2026-11-29");
    insertUsage.run("u", "2026-11-30");

    pruneSqlite(db, now - 30 * DAY);

    const column = (sql: string) =>
      (db.prepare(sql).all() as Array<Record<string, string>>).map((row) => Object.values(row)[0]);
    expect(column("SELECT run_id FROM opspilot_run_limits ORDER BY run_id")).toEqual(["new-run"]);
    expect(column("SELECT day FROM opspilot_usage ORDER BY day")).toEqual(["2026-11-29", "2026-11-30"]);
    expect(column("SELECT run_id FROM opspilot_runs ORDER BY run_id")).toEqual(["new-run"]);
    backend.close();
  });
});
