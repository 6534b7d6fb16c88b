import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/storage/postgres/open-postgres.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import { DELIVERY_MEMORY_MS, type NewIncident, type Storage } from "../../src/storage/types.js";
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

/** The incidents table as it shipped first, when a group had one incident for good (UNIQUE (source, group_key)). */
const FIRST_INCIDENTS_TABLE = `CREATE TABLE opspilot_incidents (
  incident_id TEXT PRIMARY KEY, source TEXT NOT NULL, group_key TEXT NOT NULL, thread_id TEXT NOT NULL,
  status TEXT NOT NULL, alertname TEXT NOT NULL, severity TEXT, labels TEXT NOT NULL, starts_at TEXT NOT NULL,
  resolved_at BIGINT, fingerprints TEXT NOT NULL, created_at BIGINT NOT NULL, UNIQUE (source, group_key));
INSERT INTO opspilot_incidents VALUES ('inc-old', 'alertmanager', 'g1', 'thread-old', 'resolved', 'AlwaysFiring',
  NULL, '{}', '2026-12-01T00:00:00Z', 2000, '[]', 1000);`;

/** A store opened on a database made with the first incidents table keeps its row and opens a second episode. */
async function checkMigrated(storage: Storage): Promise<void> {
  expect(await storage.incidents.getIncident("inc-old")).toMatchObject({ status: "resolved", resolvedAt: 2_000 });
  const { created } = await storage.incidents.openIncident({ ...incident("g1", 3_000), incidentId: "inc-new" });
  expect(created).toBe(true);
  expect(await storage.incidents.latestIncident("alertmanager", "g1")).toMatchObject({
    incident: { incidentId: "inc-new" },
    episodes: 2,
  });
}

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

  // A resolved incident takes no more changes; the group's next episode is an incident of its own.
  expect(await storage.incidents.changeIncident({ ...change, expectedFingerprints: [], fingerprints: ["a"] })).toBe(
    false,
  );
  expect(await storage.incidents.latestIncident("alertmanager", "g1")).toMatchObject({
    incident: { incidentId: "inc-g1", status: "resolved" },
    episodes: 1,
  });
  const next = { ...incident("g1", 4_000), incidentId: "inc-g1-2", threadId: "thread-g1-2" };
  const reopened = await Promise.all([1, 2].map(() => storage.incidents.openIncident(next)));
  expect(reopened.filter((result) => result.created)).toHaveLength(1);
  expect(await storage.incidents.latestIncident("alertmanager", "g1")).toMatchObject({
    incident: { incidentId: "inc-g1-2", status: "firing", threadId: "thread-g1-2" },
    episodes: 2,
  });
  expect(await storage.incidents.latestIncident("alertmanager", "nothing")).toEqual({ episodes: 0 });
}

/** Webhook delivery ids: remembered once across concurrent callers, and pruned after `DELIVERY_MEMORY_MS`. */
async function checkDeliveries(storage: Storage): Promise<void> {
  const at = 1_000_000_000_000;
  expect(await storage.incidents.knowsDelivery("pagerduty", "w1")).toBe(false);
  const raced = await Promise.all([1, 2, 3].map(() => storage.incidents.rememberDelivery("pagerduty", "w1", at)));
  expect(raced.filter(Boolean)).toHaveLength(1);
  expect(await storage.incidents.knowsDelivery("pagerduty", "w1")).toBe(true);
  expect(await storage.incidents.knowsDelivery("alertmanager", "w1")).toBe(false);
  expect(await storage.incidents.rememberDelivery("alertmanager", "w1", at)).toBe(true);
  expect(await storage.incidents.rememberDelivery("pagerduty", "w2", at + DELIVERY_MEMORY_MS)).toBe(true);
  expect(await storage.incidents.knowsDelivery("pagerduty", "w1")).toBe(true);
  await storage.incidents.rememberDelivery("pagerduty", "w3", at + DELIVERY_MEMORY_MS + 1);
  expect(await storage.incidents.knowsDelivery("pagerduty", "w1")).toBe(false);
  expect(await storage.incidents.knowsDelivery("alertmanager", "w1")).toBe(false);
  expect(await storage.incidents.knowsDelivery("pagerduty", "w2")).toBe(true);
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

  it("rebuilds an incidents table made when a group had one incident, keeping its rows", async () => {
    const directory = tempDirectory();
    const path = `${directory.path}/first.sqlite`;
    const before = new Database(path);
    before.exec(FIRST_INCIDENTS_TABLE);
    before.close();
    const sqlite = openSqlite(path);
    try {
      await checkMigrated(sqlite.storage);
    } finally {
      sqlite.close();
      directory.remove();
    }
  });

  it("remembers a webhook delivery id once, across processes, and forgets it after 7 days", async () => {
    const directory = tempDirectory();
    const first = openSqlite(`${directory.path}/deliveries.sqlite`);
    const second = openSqlite(`${directory.path}/deliveries.sqlite`);
    try {
      await checkDeliveries(first.storage);
      expect(
        await second.storage.incidents.rememberDelivery("pagerduty", "w2", 1_000_000_000_000 + DELIVERY_MEMORY_MS + 2),
      ).toBe(false);
    } finally {
      first.close();
      second.close();
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

  it("drops the one-incident-per-group key of a database made before, keeping its rows", async () => {
    const url = await cluster.createDatabase("first_incidents");
    const before = new pg.Client({ connectionString: url });
    await before.connect();
    await before.query(FIRST_INCIDENTS_TABLE);
    await before.end();
    const postgres = await openPostgres(url);
    try {
      await checkMigrated(postgres.storage);
    } finally {
      await postgres.close();
    }
  });

  it("remembers a webhook delivery id once, across processes, and forgets it after 7 days", async () => {
    const url = await cluster.createDatabase("deliveries");
    const [first, second] = [await openPostgres(url), await openPostgres(url)];
    try {
      await checkDeliveries(first.storage);
      expect(
        await second.storage.incidents.rememberDelivery("pagerduty", "w2", 1_000_000_000_000 + DELIVERY_MEMORY_MS + 2),
      ).toBe(false);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
