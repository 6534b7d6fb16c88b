import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";

/** The decisions table as databases created before answers recorded who gave them have it. */
const OLD_DECISIONS_TABLE = `
CREATE TABLE opspilot_decisions (
  thread_id TEXT NOT NULL, call_id TEXT NOT NULL, interrupt_id TEXT NOT NULL, action TEXT NOT NULL,
  args_hash_before TEXT NOT NULL, args_hash_after TEXT, message TEXT, decided_at INTEGER NOT NULL,
  PRIMARY KEY (thread_id, call_id));
INSERT INTO opspilot_decisions VALUES ('t1', 'old', 'i0', 'approve', 'h0', 'h0', NULL, 1);
`;

describe("decisions in a SQLite file from an earlier version", () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it("adds who answered, keeps the earlier rows, and opens the same file again", async () => {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-upgrade-"));
    directories.push(directory);
    const path = join(directory, "old.sqlite");
    const old = new BetterSqlite3(path);
    old.exec(OLD_DECISIONS_TABLE);
    old.close();

    const first = openSqlite(path);
    await first.storage.recordDecision({
      threadId: "t1",
      callId: "new",
      interruptId: "i1",
      action: "reject",
      userId: "root",
      role: "operator",
      argsHashBefore: "h1",
      message: "not now",
    });
    first.close();

    const again = openSqlite(path);
    try {
      const { decisions } = await again.storage.threadRecords("t1");
      expect(decisions.map((row) => [row.call_id, row.action, row.message, row.user_id, row.role])).toEqual([
        ["old", "approve", null, null, null],
        ["new", "reject", "not now", "root", "operator"],
      ]);
    } finally {
      again.close();
    }
  });
});
