import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { pastConclusions, recordConclusion, type PastConclusion } from "../../src/service/incidents/past-incidents.js";
import {
  openPostgres,
  STORE_APPLICATION_NAME,
  type PostgresBackend,
} from "../../src/storage/postgres/open-postgres.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

const labels = { service: "payment-service", env: "prod" };

function conclusion(incidentId: string, at: number): PastConclusion {
  return {
    incidentId,
    alertname: "PaymentHighErrorRate",
    labels,
    threadId: `incident-${incidentId}`,
    link: `https://opspilot.example.com/#/threads/incident-${incidentId}`,
    conclusion: `Incident ${incidentId}: the DB pool was exhausted.`,
    stopReason: "final_answer",
    at,
  };
}

describe.skipIf(skipPostgres)("LangGraph's PostgresStore in the PostgreSQL backend", () => {
  let cluster: PostgresCluster;
  let directory: string;
  // Two backends on one database stand for two opspilot processes.
  let first: PostgresBackend;
  let second: PostgresBackend;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    directory = mkdtempSync(join(tmpdir(), "opspilot-pg-store-"));
    // Opened together: the store's migrations run under the set-up lock, once.
    [first, second] = await Promise.all([
      openPostgres(cluster.url, { onIdleError: () => {} }),
      openPostgres(cluster.url, { onIdleError: () => {} }),
    ]);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("keeps past incidents where every process finds them, newest first", async () => {
    expect(first.store).toBeInstanceOf(PostgresStore);
    for (const [id, at] of [
      ["inc_b", 2],
      ["inc_c", 3],
      ["inc_a", 1],
      ["inc_d", 4],
    ] as const)
      await recordConclusion(first.store, conclusion(id, Date.UTC(2026, 11, at)));
    const found = await pastConclusions(second.store, {
      alertname: "PaymentHighErrorRate",
      labels: { ...labels, severity: "critical" },
      excludeIncidentId: "inc_d",
    });
    expect(found).toEqual([
      conclusion("inc_c", Date.UTC(2026, 11, 3)),
      conclusion("inc_b", Date.UTC(2026, 11, 2)),
      conclusion("inc_a", Date.UTC(2026, 11, 1)),
    ]);
    const { rows } = await first.pool.query("SELECT v FROM store_migrations ORDER BY v");
    expect(rows.map((row: { v: number }) => row.v)).toEqual([0, 1, 2, 3]);
  });

  it("keeps no connection idle, so a database restart's disconnects find none to crash on", async () => {
    await first.store.put(["probe"], "k", { n: 1 });
    const storeConnections = async () =>
      Number(
        (
          await first.pool.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [
            STORE_APPLICATION_NAME,
          ])
        ).rows[0].n,
      );
    await vi.waitFor(async () => expect(await storeConnections()).toBe(0), { timeout: 5_000 });
    // What a restart does to every session of the database but this one.
    await first.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    expect((await second.store.get(["probe"], "k"))?.value).toEqual({ n: 1 });
  });

  it("is the app's store with DATABASE_URL, outside its graph, and stopped when the app closes", async () => {
    const app = await openApp({
      env: loadEnv({
        DATABASE_URL: cluster.url,
        OPSPILOT_DB: join(directory, "demo.sqlite"),
        OPSPILOT_LOG_LEVEL: "silent",
      }),
    });
    const store = app.store;
    try {
      expect(store).toBeInstanceOf(PostgresStore);
      expect(app.graph.store).toBeUndefined();
      expect(await pastConclusions(store, { alertname: "PaymentHighErrorRate", labels })).toHaveLength(3);
    } finally {
      await app.close();
    }
    await expect(store.get(["probe"], "k")).rejects.toThrow(/after calling end on the pool/);
  });
});
