import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";

describe("run leases on SQLite", () => {
  it("gives a thread to one run at a time, renews, expires, and carries cancel requests", async () => {
    const db = new BetterSqlite3(":memory:");
    const first = new SqliteStorage(db);
    const second = new SqliteStorage(db);
    expect(await first.acquireLease("t", "run-a", 30)).toBe(true);
    expect(await second.acquireLease("t", "run-b", 60_000)).toBe(false);
    await first.renewLease("t", "run-a", 60_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await second.leaseHolder("t")).toBe("run-a");
    expect(await first.cancelRequested("t", "run-a")).toBe(false);
    expect(await second.requestCancel("t")).toBe(true);
    expect(await first.cancelRequested("t", "run-a")).toBe(true);
    await first.renewLease("t", "run-a", 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await second.leaseHolder("t")).toBeUndefined();
    expect(await second.requestCancel("t")).toBe(false);
    expect(await second.acquireLease("t", "run-b", 60_000)).toBe(true);
  });
});
