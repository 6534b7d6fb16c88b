import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/storage/postgres/open-postgres.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import type { Storage } from "../../src/storage/types.js";
import { tempDirectory } from "../fixtures/alert-server.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

/** The Slack thread store's contract, the same on SQLite and PostgreSQL, over two connections to one database. */
async function checkClaims(first: Storage, second: Storage): Promise<void> {
  const claims = await Promise.all([
    first.slackThreads.claim("inc-1", "#incidents", 1_000, 0),
    second.slackThreads.claim("inc-1", "#incidents", 1_000, 0),
  ]);
  expect(claims.filter(Boolean)).toHaveLength(1);
  expect(await second.slackThreads.get("inc-1")).toEqual({
    incidentId: "inc-1",
    channel: "#incidents",
    claimedAt: 1_000,
  });
  // A fresh claim holds; one older than the cut-off without a ts is taken over.
  expect(await second.slackThreads.claim("inc-1", "#incidents", 2_000, 500)).toBe(false);
  expect(await second.slackThreads.claim("inc-1", "#incidents", 70_000, 10_000)).toBe(true);
  await second.slackThreads.setTs("inc-1", "C0INCIDENT1", "1764700000.000001");
  expect(await first.slackThreads.get("inc-1")).toEqual({
    incidentId: "inc-1",
    channel: "C0INCIDENT1",
    ts: "1764700000.000001",
    claimedAt: 70_000,
  });
  // A posted message is never claimed again, nor released.
  expect(await first.slackThreads.claim("inc-1", "#incidents", 999_999, 999_999)).toBe(false);
  await first.slackThreads.release("inc-1");
  expect((await first.slackThreads.get("inc-1"))?.ts).toBe("1764700000.000001");
  // A claim given up lets the next update claim it.
  expect(await first.slackThreads.claim("inc-2", "#incidents", 1_000, 0)).toBe(true);
  await first.slackThreads.release("inc-2");
  expect(await second.slackThreads.get("inc-2")).toBeUndefined();
  expect(await second.slackThreads.claim("inc-2", "#incidents", 1_001, 0)).toBe(true);
}

describe("the Slack thread store on SQLite", () => {
  const directory = tempDirectory();
  afterAll(() => directory.remove());

  it("lets one connection of two claim an incident's parent message and keeps its ts", async () => {
    const first = openSqlite(`${directory.path}/slack.sqlite`);
    const second = openSqlite(`${directory.path}/slack.sqlite`);
    try {
      await checkClaims(first.storage, second.storage);
    } finally {
      first.close();
      second.close();
    }
  });
});

describe.skipIf(skipPostgres)("the Slack thread store on PostgreSQL", { timeout: 60_000 }, () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("lets one process of two claim an incident's parent message and keeps its ts", async () => {
    const url = await cluster.createDatabase("slack");
    const first = await openPostgres(url);
    const second = await openPostgres(url);
    try {
      await checkClaims(first.storage, second.storage);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
