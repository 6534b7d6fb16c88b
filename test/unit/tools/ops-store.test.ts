import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { makeContext, makeStore, runTool } from "./helpers.js";

const directories: string[] = [];

/** A fresh database file in a temporary directory. */
function tempFile(): string {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-ops-"));
  directories.push(directory);
  return join(directory, "ops.sqlite");
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("OpsStore", () => {
  it("creates only ops_-prefixed tables", () => {
    const db = new Database(":memory:");
    makeStore(db);
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'ops\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      )
      .all();
    expect(tables).toEqual([]);
  });

  it("loads the dataset once when a second store opens the same database", () => {
    const db = new Database(":memory:");
    makeStore(db);
    makeStore(db);
    expect(db.prepare("SELECT COUNT(*) AS count FROM ops_logs").get()).toEqual({ count: 259 });
    expect(db.prepare("SELECT COUNT(*) AS count FROM ops_runbooks_fts").get()).toEqual({ count: 18 });
    expect(db.prepare("SELECT COUNT(*) AS count FROM ops_service_state").get()).toEqual({ count: 20 });
  });

  it("keeps restarts across processes that share the database file", async () => {
    const file = tempFile();
    const first = new Database(file);
    await runTool(
      makeStore(first),
      "restart_service",
      { service: "payment-service", environment: "prod" },
      makeContext({ callId: "call-9" }),
    );
    first.close();

    const second = new Database(file);
    const store = makeStore(second);
    const again = await runTool(
      store,
      "restart_service",
      { service: "payment-service", environment: "prod" },
      makeContext({ callId: "call-9" }),
    );
    expect(again).toMatchObject({ restartCount: 1 });
    expect(await store.countActions({ action: "restart", service: "payment-service", environment: "prod" })).toBe(1);
    expect(await store.getMetrics("payment-service", "prod")).toMatchObject({ status: "recovering", restartCount: 1 });
    second.close();
  });

  it("lists recorded actions with the result each returned", async () => {
    const store = makeStore();
    const result = await runTool(
      store,
      "restart_service",
      { service: "api-gateway", environment: "staging" },
      makeContext({ callId: "call-3" }),
    );
    expect(await store.listActions()).toEqual([
      {
        id: 1,
        idempotencyKey: "thread-1:call-3",
        action: "restart",
        service: "api-gateway",
        environment: "staging",
        detail: result,
        createdAt: "2025-06-11T08:00:00.000Z",
      },
    ]);
  });

  it("refuses an idempotency key reused for a different action", async () => {
    const store = makeStore();
    const context = makeContext({ callId: "call-4" });
    await runTool(store, "restart_service", { service: "payment-service", environment: "prod" }, context);
    await expect(
      runTool(store, "rollback_deploy", { service: "payment-service", environment: "prod" }, context),
    ).rejects.toMatchObject({
      errorCode: "internal",
    });
    expect(await store.countActions()).toBe(1);
  });
});
