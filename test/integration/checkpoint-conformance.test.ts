import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import {
  deltaChannelHistoryTests,
  validate,
  type CheckpointSaverTestInitializer,
} from "@langchain/langgraph-checkpoint-validation";
import pg from "pg";
import { describe } from "vitest";
import { openPostgres, type PostgresBackend } from "../../src/storage/postgres/open-postgres.js";
import { openSqlite, type SqliteBackend } from "../../src/storage/sqlite/open-sqlite.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

// LangGraph's checkpointer conformance suite (718 tests a saver) against the savers exactly as
// the app opens them. The suite is written against vitest's globals: vitest.config.ts turns them
// on for this file only.
//
// Each saver runs under its stock module's name, because the suite keys its known limitations
// of the stock savers by that name: it skips "should only store channel_values that have changed"
// for "@langchain/langgraph-checkpoint-sqlite", which the stock SqliteSaver fails (it stores whole
// values), and nothing for "@langchain/langgraph-checkpoint-postgres". Every other test must pass.
// Its opt-in `getDeltaChannelHistory` scenarios run too: both savers read that history their own way.

/** A fresh SQLite file per checkpointer, opened with `openSqlite`, closed and removed afterwards. */
function sqliteInitializer(): CheckpointSaverTestInitializer<BaseCheckpointSaver> {
  let directory = "";
  let files = 0;
  const open = new Map<BaseCheckpointSaver, SqliteBackend>();
  return {
    checkpointerName: "@langchain/langgraph-checkpoint-sqlite",
    beforeAll() {
      directory = mkdtempSync(join(tmpdir(), "opspilot-conformance-"));
    },
    afterAll() {
      for (const backend of open.values()) backend.close();
      rmSync(directory, { recursive: true, force: true });
    },
    createCheckpointer() {
      files += 1;
      const backend = openSqlite(join(directory, `saver-${files}.sqlite`));
      open.set(backend.checkpointer, backend);
      return backend.checkpointer;
    },
    destroyCheckpointer(checkpointer) {
      open.get(checkpointer)?.close();
      open.delete(checkpointer);
    },
  };
}

/**
 * One private PostgreSQL cluster; each checkpointer is a new `openPostgres(url)` on its
 * database, and every table but the checkpointer's migration record is emptied after it closes.
 */
function postgresInitializer(): CheckpointSaverTestInitializer<BaseCheckpointSaver> {
  let cluster: PostgresCluster | undefined;
  let admin: pg.Client | undefined;
  const open = new Map<BaseCheckpointSaver, PostgresBackend>();
  return {
    checkpointerName: "@langchain/langgraph-checkpoint-postgres",
    beforeAllTimeout: 120_000,
    async beforeAll() {
      cluster = await startPostgresCluster();
      admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
    },
    async afterAll() {
      await Promise.all([...open.values()].map((backend) => backend.close()));
      await admin?.end();
      await cluster?.stop();
    },
    async createCheckpointer() {
      const backend = await openPostgres(cluster!.url);
      open.set(backend.checkpointer, backend);
      return backend.checkpointer;
    },
    async destroyCheckpointer(checkpointer) {
      await open.get(checkpointer)?.close();
      open.delete(checkpointer);
      const { rows } = await admin!.query<{ name: string }>(
        "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'checkpoint_migrations'",
      );
      if (rows.length > 0) await admin!.query(`TRUNCATE ${rows.map((row) => row.name).join(", ")}`);
    },
  };
}

describe("openSqlite(file).checkpointer", () => {
  const initializer = sqliteInitializer();
  validate(initializer);
  deltaChannelHistoryTests(initializer);
});

describe.skipIf(skipPostgres)("openPostgres(url).checkpointer", () => {
  const initializer = postgresInitializer();
  validate(initializer);
  deltaChannelHistoryTests(initializer);
});
