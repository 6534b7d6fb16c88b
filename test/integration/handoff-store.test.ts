import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/storage/postgres/open-postgres.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import type { HandoffStore } from "../../src/storage/types.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

const alice = { id: "alice", role: "operator" };
const bot = { id: "opspilot:alerts", role: "operator" };

/** The store's contract, the same on both databases. */
async function checkHandoffs(store: HandoffStore): Promise<void> {
  await store.recordHandoff({ threadId: "t2", user: bot, handedAt: 2_000 });
  await store.recordHandoff({ threadId: "t1", user: alice, handedAt: 1_000 });
  expect(await store.handoffs(10)).toEqual([
    { threadId: "t1", user: alice, handedAt: 1_000 },
    { threadId: "t2", user: bot, handedAt: 2_000 },
  ]);
  expect(await store.handoffs(1)).toEqual([{ threadId: "t1", user: alice, handedAt: 1_000 }]);

  // Handed over again (its recovery was drained in turn): the later record replaces the first.
  await store.recordHandoff({ threadId: "t1", user: alice, handedAt: 3_000 });
  await store.forgetHandoff("t1", 1_000);
  expect(await store.handoffs(10)).toEqual([
    { threadId: "t2", user: bot, handedAt: 2_000 },
    { threadId: "t1", user: alice, handedAt: 3_000 },
  ]);
  await store.forgetHandoff("t1", 3_000);
  await store.forgetHandoff("t2", 2_000);
  expect(await store.handoffs(10)).toEqual([]);
}

describe("hand-overs on SQLite", () => {
  it("keeps one hand-over per thread, oldest first, and forgets only the one read", async () => {
    const sqlite = openSqlite(":memory:");
    try {
      await checkHandoffs(sqlite.storage.handoffs);
    } finally {
      await sqlite.close();
    }
  });
});

describe.skipIf(skipPostgres)("hand-overs on PostgreSQL", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => cluster?.stop());

  it("keeps one hand-over per thread, oldest first, and forgets only the one read, across processes", async () => {
    const url = await cluster.createDatabase("handoffs");
    const [first, second] = [await openPostgres(url), await openPostgres(url)];
    try {
      await first.storage.handoffs.recordHandoff({ threadId: "t0", user: alice, handedAt: 500 });
      expect(await second.storage.handoffs.handoffs(10)).toEqual([{ threadId: "t0", user: alice, handedAt: 500 }]);
      await second.storage.handoffs.forgetHandoff("t0", 500);
      await checkHandoffs(first.storage.handoffs);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
