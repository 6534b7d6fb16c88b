import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/storage/open-postgres.js";
import { openSqlite } from "../../src/storage/open-sqlite.js";
import type { NewIncident, Storage } from "../../src/storage/types.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { tempDirectory } from "../fixtures/alert-server.js";

const incident = (groupKey: string, createdAt: number): NewIncident => ({
  incidentId: `inc-${groupKey}`,
  source: "alertmanager",
  groupKey,
  threadId: `thread-${groupKey}`,
  alertname: "AlwaysFiring",
  severity: "critical",
  labels: { service: "payment-service" },
  startsAt: "2026-12-01T19:36:44.119Z",
  fingerprints: ["a"],
  createdAt,
  userId: "alertmanager",
  message: "first",
});

/** The incident store's contract, the same on SQLite and PostgreSQL. */
async function checkIncidents(storage: Storage): Promise<void> {
  const opened = await Promise.all([1, 2, 3].map(() => storage.incidents.openIncident(incident("g1", 1_000))));
  expect(opened.filter((result) => result.created)).toHaveLength(1);
  expect(await storage.threadOwner("thread-g1")).toBe("alertmanager");
  await storage.incidents.openIncident(incident("g2", 2_000));

  const change = {
    incidentId: "inc-g1",
    expectedFingerprints: ["a"],
    fingerprints: ["a", "b"],
    status: "firing" as const,
    kind: "run" as const,
    message: "joined",
  };
  const raced = await Promise.all([storage.incidents.changeIncident(change), storage.incidents.changeIncident(change)]);
  expect(raced.filter(Boolean)).toHaveLength(1);
  expect(
    await storage.incidents.changeIncident({
      ...change,
      expectedFingerprints: ["a", "b"],
      fingerprints: [],
      status: "resolved",
      resolvedAt: 3_000,
      kind: "note",
      message: "resolved",
    }),
  ).toBe(true);

  expect((await storage.incidents.listIncidents(10)).map((row) => [row.incidentId, row.status])).toEqual([
    ["inc-g2", "firing"],
    ["inc-g1", "resolved"],
  ]);
  expect(await storage.incidents.getIncident("inc-g1")).toMatchObject({
    resolvedAt: 3_000,
    fingerprints: [],
    severity: "critical",
  });
  const pending = await storage.incidents.pendingIncidentMessages();
  expect(pending.filter((m) => m.incidentId === "inc-g1").map((m) => [m.seq, m.kind, m.message])).toEqual([
    [1, "run", "first"],
    [2, "run", "joined"],
    [3, "note", "resolved"],
  ]);
  await storage.incidents.finishIncidentMessage("inc-g1", 1);
  expect((await storage.incidents.pendingIncidentMessages()).map((m) => `${m.incidentId}:${m.seq}`)).toEqual(
    expect.not.arrayContaining(["inc-g1:1"]),
  );
}

describe("incident store on SQLite", () => {
  it("opens one incident per group, applies each change once and keeps the messages in order", async () => {
    const directory = tempDirectory();
    const sqlite = openSqlite(`${directory.path}/incidents.sqlite`);
    try {
      await checkIncidents(sqlite.storage);
    } finally {
      sqlite.close();
      directory.remove();
    }
  });
});

describe.skipIf(skipPostgres)("incident store on PostgreSQL", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => cluster?.stop());

  it("opens one incident per group, applies each change once and keeps the messages in order", async () => {
    const postgres = await openPostgres(await cluster.createDatabase("incidents"));
    try {
      await checkIncidents(postgres.storage);
    } finally {
      await postgres.close();
    }
  });
});
