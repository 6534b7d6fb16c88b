import pg from "pg";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { ConfigError } from "../../contracts/errors.js";
import { preparePostgresSchema, withSetupLock } from "./postgres-schema.js";
import { PostgresStorage } from "./postgres-storage.js";
import { BatchedPostgresSaver } from "../checkpoints/postgres-checkpointer.js";

/** One PostgreSQL database holding checkpoints, the write journal, records, events and run leases. */
export interface PostgresBackend {
  /** The shared pool. */
  pool: pg.Pool;
  /** LangGraph's official PostgreSQL checkpointer on that pool (`PostgresSaver`'s rows), saving a superstep in one round trip. */
  checkpointer: BatchedPostgresSaver;
  /** opspilot's own tables on that pool. */
  storage: PostgresStorage;
  /** LangGraph's official `BaseStore` on the same database (its `store` table), on a small pool of its own. */
  store: PostgresStore;
  /** Stops the store, then ends the pool and resolves once every connection has closed; safe to call more than once. */
  close(): Promise<void>;
}

/** Options of `openPostgres`. */
export interface OpenPostgresOptions {
  /** Most connections the pool opens (10 by default); set-up needs at least 2. */
  maxConnections?: number;
  /** Where to report errors of idle connections (the server restarted, the network dropped). */
  onIdleError?: (error: Error) => void;
}

/** `url` without its password, for messages. */
function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

/**
 * Connects to the database at `url` and creates, on first use, the checkpointer's tables and
 * opspilot's. Processes that start together take turns (advisory lock). An unreachable or
 * unusable database is a `ConfigError` naming the URL without its password.
 */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresBackend> {
  const pool = new pg.Pool({ connectionString: url, max: Math.max(2, options.maxConnections ?? 10) });
  // Without a listener, an idle connection's error would crash the process.
  pool.on(
    "error",
    options.onIdleError ?? ((error) => console.error(`[opspilot] idle PostgreSQL connection failed: ${error.message}`)),
  );
  // pool.end() resolves before the sockets close; closing waits for them, so nothing outlives `close`.
  const open = new Set<pg.PoolClient>();
  pool.on("connect", (client) => {
    open.add(client);
    client.once("end", () => open.delete(client));
  });
  const storage = new PostgresStorage(pool);
  const checkpointer = new BatchedPostgresSaver(pool);
  const store = openStore(url);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await store.stop();
      const closed = [...open].map((client) => new Promise((resolve) => client.once("end", resolve)));
      await checkpointer.end();
      await Promise.all(closed);
    })());
  try {
    await withSetupLock(pool, async () => {
      await checkpointer.setup();
      await preparePostgresSchema(pool);
      await store.setup();
    });
  } catch (error) {
    await close();
    const reason = (error as Error).message || (error as NodeJS.ErrnoException).code || String(error);
    throw new ConfigError(`Cannot set up PostgreSQL at ${redact(url)}: ${reason}`);
  }
  return { pool, checkpointer, storage, store, close };
}

/**
 * The store on its own pool (`PostgresStore` builds one from connection options). That pool has
 * no error listener, and an idle connection's error with none would crash the process, so each
 * connection serves one operation and closes: the store is never idle (its operations are few,
 * one per incident opened or answered, so a connection each costs nothing a user feels).
 */
function openStore(url: string): PostgresStore {
  return new PostgresStore({
    connectionOptions: { connectionString: url, max: 2, maxUses: 1, application_name: STORE_APPLICATION_NAME },
    // Set up under the advisory lock with the rest, never lazily on a first call.
    ensureTables: false,
  });
}

/** The `application_name` of the store's connections (seen in `pg_stat_activity`). */
export const STORE_APPLICATION_NAME = "opspilot-store";
