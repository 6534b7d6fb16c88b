import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import type { Database } from "better-sqlite3";
import { postgresBudgets, type BudgetStore } from "../execution/rate-limit-store.js";
import { openSqlite } from "../storage/sqlite/open-sqlite.js";
import type { Storage } from "../storage/types.js";
import { PostgresLedger, type EstateLedger } from "../demo/index.js";

/** Where an app keeps its state. */
export interface Backend {
  checkpointer: BaseCheckpointSaver;
  storage: Storage;
  store: BaseStore;
  /** The SQLite connection the demo dataset lives on. */
  opsDb: Database;
  /** Where the demo estate's restarts and rollbacks live when not in `opsDb` (PostgreSQL, shared by replicas). */
  opsLedger?: EstateLedger;
  /** Where the tools' `rateLimit` budgets are counted when not in this process's memory (PostgreSQL, shared by replicas). */
  budgets?: BudgetStore;
  /** Closes the store, then the databases. */
  close(): Promise<void>;
}

/** Everything in one SQLite file: checkpoints, journal, records, events and the demo dataset. */
export function sqliteBackend(path: string): Backend {
  const sqlite = openSqlite(path);
  return {
    checkpointer: sqlite.checkpointer,
    storage: sqlite.storage,
    store: sqlite.store,
    opsDb: sqlite.db,
    close: async () => sqlite.close(),
  };
}

/**
 * Everything shared in PostgreSQL at `url`; the demo dataset's static part (the same in every
 * process) is rebuilt in this process's SQLite file `demoPath`, its mutable state is shared.
 */
export async function postgresBackend(url: string, demoPath: string): Promise<Backend> {
  // Loaded only here: the PostgreSQL client and saver are start-up time every SQLite process would pay for nothing.
  const { openPostgres } = await import("../storage/postgres/open-postgres.js");
  const demo = openSqlite(demoPath);
  const postgres = await openPostgres(url).catch((error: unknown) => {
    demo.close();
    throw error;
  });
  const closeBoth = async () => {
    await postgres.close();
    demo.close();
  };
  const opsLedger = await PostgresLedger.open(postgres.pool).catch(async (error: unknown) => {
    await closeBoth();
    throw error;
  });
  const budgets = await postgresBudgets(postgres.pool).catch(async (error: unknown) => {
    await closeBoth();
    throw error;
  });
  return {
    checkpointer: postgres.checkpointer,
    storage: postgres.storage,
    store: postgres.store,
    opsDb: demo.db,
    opsLedger,
    budgets,
    close: closeBoth,
  };
}
