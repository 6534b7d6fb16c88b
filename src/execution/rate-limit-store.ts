import type pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from "rate-limiter-flexible";
import { withSetupLock } from "../storage/postgres/postgres-schema.js";

/** The table rate-limiter-flexible keeps the budgets of every process in (one row per tool, scope, limit and key). */
export const RATE_LIMIT_TABLE = "opspilot_rate_limits";

/** Seconds a budget's window lasts: the limits are per minute. */
const WINDOW_SECONDS = 60;

/** Where the budgets of `rateLimit` policies are counted. */
export interface BudgetStore {
  /** `memory`: this process alone (SQLite deployments are one process); `postgres`: every process on the database. */
  readonly kind: "memory" | "postgres";
  /** A per-minute budget of `points` calls; its keys are stored as given, without a prefix. */
  budget(points: number): RateLimiterAbstract;
}

/** Budgets in this process's memory. */
export function memoryBudgets(): BudgetStore {
  return {
    kind: "memory",
    budget: (points) => new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix: "" }),
  };
}

/**
 * Budgets in PostgreSQL over the app's pool, shared by every process on the database: each
 * draw is one atomic upsert of its row. The table is created before this resolves, under the
 * set-up advisory lock, so processes starting together never race on it.
 */
export async function postgresBudgets(pool: pg.Pool): Promise<BudgetStore> {
  const options = {
    storeClient: pool,
    storeType: "pool",
    tableName: RATE_LIMIT_TABLE,
    keyPrefix: "",
    duration: WINDOW_SECONDS,
  };
  await withSetupLock(
    pool,
    () =>
      new Promise<void>((resolve, reject) => {
        // The library creates its own table and calls back once it exists; this limiter also sweeps expired rows (every 5 minutes, unref'd).
        new RateLimiterPostgres({ ...options, points: 1 }, (error) => (error ? reject(error) : resolve()));
      }),
  );
  return {
    kind: "postgres",
    budget: (points) =>
      new RateLimiterPostgres({ ...options, points, tableCreated: true, clearExpiredByTimeout: false }),
  };
}

/**
 * The store a deployment's budgets need: PostgreSQL when its processes share one (`pool`),
 * so a budget holds across all of them, else this process's memory.
 */
export async function openBudgetStore(pool?: pg.Pool): Promise<BudgetStore> {
  return pool ? postgresBudgets(pool) : memoryBudgets();
}
