import pg from "pg";
import { ConfigError } from "../contracts/errors.js";
import { preparePostgresSchema, withSetupLock } from "./postgres-schema.js";
import { PostgresStorage } from "./postgres-storage.js";
import { BatchedPostgresSaver } from "./postgres-checkpointer.js";

/** One PostgreSQL database holding checkpoints, the write journal, records, events and run leases. */
export interface PostgresBackend {
  /** The shared pool. */
  pool: pg.Pool;
  /** LangGraph's official PostgreSQL checkpointer on that pool (`PostgresSaver`'s rows), saving a superstep in one round trip. */
  checkpointer: BatchedPostgresSaver;
  /** opspilot's own tables on that pool. */
  storage: PostgresStorage;
  /** Ends the pool and resolves once every connection has closed; safe to call more than once. */
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
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const closed = [...open].map((client) => new Promise((resolve) => client.once("end", resolve)));
      await checkpointer.end();
      await Promise.all(closed);
    })());
  try {
    await withSetupLock(pool, async () => {
      await checkpointer.setup();
      await preparePostgresSchema(pool);
    });
  } catch (error) {
    await close();
    const reason = (error as Error).message || (error as NodeJS.ErrnoException).code || String(error);
    throw new ConfigError(`Cannot set up PostgreSQL at ${redact(url)}: ${reason}`);
  }
  return { pool, checkpointer, storage, close };
}
