import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { Database } from "better-sqlite3";
import { ChannelSqliteSaver } from "./sqlite-checkpointer.js";
import { SqliteStorage } from "./sqlite-storage.js";

/** One SQLite file holding checkpoints, the write journal, records and the event log. */
export interface SqliteBackend {
  /** The shared connection. */
  db: Database;
  /** LangGraph's official SQLite checkpointer, storing channel values per version and each thread's latest checkpoint only, on that connection. */
  checkpointer: ChannelSqliteSaver;
  /** opspilot's own tables on that connection; step records commit with the checkpointer's writes. */
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
  // A step's records commit with the step's checkpoint writes: one commit where there were four.
  const storage = new SqliteStorage(db, { deferRecords: true });
  const checkpointer = new ChannelSqliteSaver(db, {
    latestOnly: true,
    alsoCommit: () => storage.drainRecords(),
    afterCommit: () => storage.committed(),
  });
  const close = () => {
    storage.flushRecords();
    db.close();
  };
  return { db, checkpointer, storage, close };
}
