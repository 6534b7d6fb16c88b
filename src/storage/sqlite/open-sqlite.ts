import { mkdirSync, statSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../../contracts/errors.js";
import BetterSqlite3 from "better-sqlite3";
import type { Database } from "better-sqlite3";
import { DeltaSqliteSaver } from "../checkpoints/sqlite-checkpointer.js";
import { SqliteStorage } from "./sqlite-storage.js";
import { SqliteStore } from "./sqlite-store.js";
import { migrateChannelSqlite } from "./sqlite-legacy-migration.js";

/** One SQLite file holding checkpoints, the write journal, records and the event log. */
export interface SqliteBackend {
  /** The shared connection. */
  db: Database;
  /** LangGraph's official SQLite checkpointer on that connection (its own tables, its own format, the full history), reading delta channels' history in two queries. */
  checkpointer: DeltaSqliteSaver;
  /** opspilot's own tables on that connection; each write commits on its own. */
  storage: SqliteStorage;
  /** LangGraph's `BaseStore` on that connection (past incidents; `config.store` in nodes). */
  store: SqliteStore;
  /** Closes the connection (and with it the store). */
  close(): void;
}

/**
 * Opens (creating on first use) the SQLite file at `path`; `:memory:` for a private in-memory
 * database. A path that cannot hold the file, or a file that is not SQLite, is a `ConfigError`
 * naming the path and why, so `npm start` and the CLI say it in one line.
 */
export function openSqlite(path: string): SqliteBackend {
  if (path !== ":memory:") ensureDirectory(path, dirname(resolve(path)));
  let db: Database | undefined;
  try {
    db = new BetterSqlite3(path);
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.pragma("synchronous = NORMAL");
    migrateChannelSqlite(db);
  } catch (error) {
    db?.close();
    const { code, message } = error as { code?: string; message: string };
    const reason = code === "SQLITE_NOTADB" ? `it is not a SQLite database (${message})` : message;
    throw new ConfigError(`Cannot open the SQLite database ${path}: ${reason}`);
  }
  const storage = new SqliteStorage(db);
  const checkpointer = new DeltaSqliteSaver(db);
  const store = new SqliteStore(db);
  const opened = db;
  // The store holds nothing but this connection: closing it closes the store.
  return { db: opened, checkpointer, storage, store, close: () => opened.close() };
}

/**
 * Creates `directory` and its missing parents one level at a time: Node's recursive `mkdir`
 * never returns under some virtual file systems (`/proc/nope`), and its `EEXIST` for a parent
 * that is a file names neither the file nor the database.
 */
function ensureDirectory(path: string, directory: string): void {
  const missing: string[] = [];
  let current = directory;
  for (;;) {
    const found = entryAt(current);
    if (found?.isDirectory()) break;
    if (found) throw new ConfigError(`Cannot open the SQLite database ${path}: ${current} is a file, not a directory.`);
    const parent = dirname(current);
    if (parent === current) break;
    missing.unshift(current);
    current = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && statSync(level).isDirectory()) continue;
      throw new ConfigError(
        `Cannot open the SQLite database ${path}: cannot create ${level} (${(error as Error).message}).`,
      );
    }
  }
}

/** What is at `path`, or undefined when nothing is (a missing entry, or a parent that is a file). */
function entryAt(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}
