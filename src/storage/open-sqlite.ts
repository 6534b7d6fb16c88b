import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { Database } from "better-sqlite3";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SqliteStorage } from "./sqlite-storage.js";
import { migrateChannelSqlite } from "./sqlite-legacy-migration.js";

/** One SQLite file holding checkpoints, the write journal, records and the event log. */
export interface SqliteBackend {
  /** The shared connection. */
  db: Database;
  /** LangGraph's official SQLite checkpointer on that connection: its own tables, its own format, the full history. */
  checkpointer: SqliteSaver;
  /** opspilot's own tables on that connection; each write commits on its own. */
  storage: SqliteStorage;
  /** Closes the connection. */
  close(): void;
}

/** Opens (creating on first use) the SQLite file at `path`; `:memory:` for a private in-memory database. */
export function openSqlite(path: string): SqliteBackend {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new BetterSqlite3(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  migrateChannelSqlite(db);
  const storage = new SqliteStorage(db);
  const checkpointer = new SqliteSaver(db);
  return { db, checkpointer, storage, close: () => db.close() };
}
