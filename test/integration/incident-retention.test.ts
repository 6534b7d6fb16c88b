import { afterAll, beforeAll, describe, it } from "vitest";
import { openPostgres } from "../../src/storage/postgres/open-postgres.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { checkIncidentPrune } from "../fixtures/incident-prune-scenario.js";

const RULE =
  "removes a resolved incident's timeline, postmortem draft, Slack message and hand-over with its thread, keeps an open incident's timeline and draft and those of an incident whose thread is still kept, and drops queued messages that failed before the cut-off";

describe("incident retention on SQLite", () => {
  it(RULE, async () => {
    const backend = openSqlite(":memory:");
    try {
      await checkIncidentPrune(backend);
    } finally {
      backend.close();
    }
  });
});

describe.skipIf(skipPostgres)("incident retention on PostgreSQL", () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it(RULE, async () => {
    const backend = await openPostgres(await cluster.createDatabase("opspilot_incident_prune"));
    try {
      await checkIncidentPrune(backend);
    } finally {
      await backend.close();
    }
  });
});
