import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/storage/postgres/open-postgres.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import type { NewIncident, Storage } from "../../src/storage/types.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { tempDirectory } from "../fixtures/alert-server.js";

const incident = (groupKey: string): NewIncident => ({
  incidentId: `inc-${groupKey}`,
  source: "alertmanager",
  groupKey,
  threadId: `thread-${groupKey}`,
  alertname: "PaymentErrorsHigh",
  severity: "page",
  labels: { service: "payment-service" },
  startsAt: "2026-12-01T19:36:44.119Z",
  fingerprints: ["a"],
  createdAt: 1_000,
  userId: "alertmanager",
  message: "first",
});

/** The incidents table as it was before silences and resolutions were kept, with a firing and a resolved row. */
const INCIDENTS_BEFORE = `CREATE TABLE opspilot_incidents (
  incident_id TEXT PRIMARY KEY, source TEXT NOT NULL, group_key TEXT NOT NULL, thread_id TEXT NOT NULL,
  status TEXT NOT NULL, alertname TEXT NOT NULL, severity TEXT, labels TEXT NOT NULL, starts_at TEXT NOT NULL,
  resolved_at BIGINT, fingerprints TEXT NOT NULL, created_at BIGINT NOT NULL);
INSERT INTO opspilot_incidents VALUES ('inc-old', 'alertmanager', 'g0', 'thread-old', 'resolved', 'PaymentErrorsHigh',
  NULL, '{}', '2026-12-01T00:00:00Z', 2000, '[]', 1000);
INSERT INTO opspilot_incidents VALUES ('inc-open', 'alertmanager', 'g9', 'thread-open', 'firing', 'PaymentErrorsHigh',
  NULL, '{}', '2026-12-01T00:00:00Z', NULL, '["b"]', 1500);`;

/** Silences and resolutions as the store keeps them, the same on SQLite and PostgreSQL. */
async function checkSilences(storage: Storage): Promise<void> {
  const store = storage.incidents;
  await store.openIncident(incident("g1"));
  expect(await store.getIncident("inc-g1")).not.toHaveProperty("silencedAt");

  expect(await store.setIncidentSilence("inc-g1", { at: 2_000, silenceIds: ["s2", "s1", "s2"] })).toBe(true);
  expect(await store.getIncident("inc-g1")).toMatchObject({
    status: "firing",
    silencedAt: 2_000,
    silenceIds: ["s1", "s2"],
  });
  expect(await store.setIncidentSilence("inc-g1", null)).toBe(true);
  const unsilenced = await store.getIncident("inc-g1");
  expect(unsilenced).not.toHaveProperty("silencedAt");
  expect(unsilenced).not.toHaveProperty("silenceIds");
  expect(await store.setIncidentSilence("inc-g1", { at: 3_000, silenceIds: ["s3"] })).toBe(true);

  const resolve = { incidentId: "inc-g1", expectedFingerprints: ["a"], fingerprints: [], kind: "note" as const };
  expect(
    await store.changeIncident({
      ...resolve,
      status: "resolved",
      resolvedAt: 4_000,
      resolution: "resolved_while_silenced",
      message: "resolved while silenced",
    }),
  ).toBe(true);
  // The silence stays on the record of how it ended; a resolved incident takes no silence.
  expect(await store.getIncident("inc-g1")).toMatchObject({
    status: "resolved",
    resolvedAt: 4_000,
    resolution: "resolved_while_silenced",
    silencedAt: 3_000,
    silenceIds: ["s3"],
  });
  expect(await store.setIncidentSilence("inc-g1", null)).toBe(false);
  expect(await store.setIncidentSilence("inc-none", { at: 1, silenceIds: [] })).toBe(false);

  // A resolution without its own is the source's word.
  await store.openIncident(incident("g2"));
  await store.changeIncident({ ...resolve, incidentId: "inc-g2", status: "resolved", resolvedAt: 5_000, message: "r" });
  expect(await store.getIncident("inc-g2")).toMatchObject({ status: "resolved", resolution: "alert_resolved" });
}

/** A database made before the columns opens as it is: its rows read as before, and its firing one can be silenced. */
async function checkBefore(storage: Storage): Promise<void> {
  const old = await storage.incidents.getIncident("inc-old");
  expect(old).toMatchObject({ status: "resolved", resolvedAt: 2_000 });
  expect(old).not.toHaveProperty("resolution");
  expect(await storage.incidents.setIncidentSilence("inc-open", { at: 9, silenceIds: ["s1"] })).toBe(true);
  expect(await storage.incidents.getIncident("inc-open")).toMatchObject({ silencedAt: 9, silenceIds: ["s1"] });
}

describe("incident silences on SQLite", () => {
  it("keeps a firing incident's silence until it fires again or ends, and how it ended", async () => {
    const directory = tempDirectory();
    const sqlite = openSqlite(`${directory.path}/silences.sqlite`);
    try {
      await checkSilences(sqlite.storage);
    } finally {
      sqlite.close();
      directory.remove();
    }
  });

  it("opens a database made before silences were kept, with its rows", async () => {
    const directory = tempDirectory();
    const path = `${directory.path}/before.sqlite`;
    const before = new Database(path);
    before.exec(INCIDENTS_BEFORE);
    before.close();
    const sqlite = openSqlite(path);
    try {
      await checkBefore(sqlite.storage);
    } finally {
      sqlite.close();
      directory.remove();
    }
  });
});

describe.skipIf(skipPostgres)("incident silences on PostgreSQL", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => cluster?.stop());

  it("keeps a firing incident's silence until it fires again or ends, and how it ended", async () => {
    const postgres = await openPostgres(await cluster.createDatabase("silences"));
    try {
      await checkSilences(postgres.storage);
    } finally {
      await postgres.close();
    }
  });

  it("opens a database made before silences were kept, with its rows", async () => {
    const url = await cluster.createDatabase("before_silences");
    const before = new pg.Client({ connectionString: url });
    await before.connect();
    await before.query(INCIDENTS_BEFORE);
    await before.end();
    const postgres = await openPostgres(url);
    try {
      await checkBefore(postgres.storage);
    } finally {
      await postgres.close();
    }
  });
});
