import { describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { parseAge } from "../../../src/service/jobs/retention.js";
import { runPrune } from "../../../src/cli/prune.js";
import { loadEnv } from "../../../src/config/env.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkPrune } from "../../fixtures/prune-scenario.js";

describe("prune on SQLite", () => {
  it("removes old threads, old checkpoints and old records, and leaves a waiting pause resumable", async () => {
    const backend = openSqlite(":memory:");
    const count = (sql: string, ...params: unknown[]) => (backend.db.prepare(sql).get(...params) as { n: number }).n;
    await checkPrune(backend, {
      checkpoints: async (threadId) => count("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ?", threadId),
      dangling: async () =>
        count(`SELECT COUNT(*) AS n FROM writes w WHERE NOT EXISTS (SELECT 1 FROM checkpoints c
          WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`),
    });
    backend.close();
  });

  it("reads ages in days, hours and minutes", () => {
    expect([parseAge("30d"), parseAge("12h"), parseAge("90m")]).toEqual([2_592_000_000, 43_200_000, 5_400_000]);
    expect([parseAge("30"), parseAge("d"), parseAge("1w"), parseAge("-1d")]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("runs from the command line and refuses a missing or malformed age", async () => {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-prune-"));
    try {
      const env = loadEnv({ OPSPILOT_DB: join(directory, "opspilot.sqlite") });
      const output = { stdout: "", stderr: "" };
      const io = {
        stdout: { write: (text: string) => (output.stdout += text) },
        stderr: { write: (text: string) => (output.stderr += text) },
      };
      expect(await runPrune({ argv: ["--older-than", "30d"], env, ...io })).toBe(0);
      expect(output.stdout).toMatch(
        /^Pruned what is older than \d{4}-\d\d-\d\dT[\d:.]+Z: 0 whole threads, 0 checkpoints, 0 pending writes, 0 channel values, 0 events, 0 raw results, 0 runs, 0 steps, 0 tool calls, 0 decisions\.\n$/,
      );
      for (const argv of [[], ["--older-than"], ["--older-than", "soon"], ["--older-than=0d"], ["30d"]]) {
        output.stderr = "";
        expect(await runPrune({ argv, env, ...io })).toBe(2);
        expect(output.stderr).toContain("give --older-than with an age such as 30d");
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
