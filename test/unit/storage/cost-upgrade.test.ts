import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { utcDay } from "../../../src/storage/records/usage-day.js";

/** The runs and steps tables as databases created before cost was recorded have them. */
const OLD_TABLES = `
CREATE TABLE opspilot_runs (
  run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, user_id TEXT NOT NULL, started_at INTEGER NOT NULL,
  finished_at INTEGER, stop_reason TEXT, steps INTEGER, duration_ms INTEGER, resumed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE opspilot_steps (
  run_id TEXT NOT NULL, step INTEGER NOT NULL, latency_ms INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, tool_calls INTEGER NOT NULL, PRIMARY KEY (run_id, step));
INSERT INTO opspilot_runs VALUES ('old', 't1', 'alice', 1, 2, 'final_answer', 1, 1, 0);
INSERT INTO opspilot_steps VALUES ('old', 1, 5, 10, 2, 0);
`;

describe("cost in a SQLite file from an earlier version", () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it("adds cost and tokens to runs and steps, keeps the earlier rows, and counts usage", async () => {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-upgrade-"));
    directories.push(directory);
    const path = join(directory, "old.sqlite");
    const old = new BetterSqlite3(path);
    old.exec(OLD_TABLES);
    old.close();

    const first = openSqlite(path);
    const startedAt = Date.now();
    await first.storage.recordRunStart({ runId: "new", threadId: "t1", userId: "alice", startedAt });
    await first.storage.recordStep({
      runId: "new",
      step: 1,
      latencyMs: 7,
      inputTokens: 1_000,
      outputTokens: 500,
      toolCalls: 1,
      costUsd: 0.25,
    });
    await first.storage.recordRunEnd({
      runId: "new",
      stopReason: "max_steps",
      steps: 1,
      durationMs: 9,
      resumed: false,
      tokens: 1_500,
      costUsd: 0.25,
    });
    first.close();

    const again = openSqlite(path);
    try {
      const { runs, steps } = await again.storage.threadRecords("t1");
      expect(runs.map((row) => [row.run_id, row.tokens, row.cost_usd])).toEqual([
        ["old", null, null],
        ["new", 1_500, 0.25],
      ]);
      expect(steps.map((row) => [row.run_id, row.input_tokens, row.cost_usd])).toEqual([
        ["old", 10, null],
        ["new", 1_000, 0.25],
      ]);
      const today = utcDay(startedAt);
      expect(await again.storage.usageOn("alice", today)).toEqual({ runs: 1, tokens: 1_500, costUsd: 0.25 });
      expect(await again.storage.usageOn("bob", today)).toEqual({ runs: 0, tokens: 0, costUsd: 0 });
    } finally {
      again.close();
    }
  });
});
