import type pg from "pg";
import { inTransaction, withSetupLock } from "../../storage/postgres/postgres-schema.js";
import type { ActionOutcome, ActionRequest, ServiceStateRow } from "./actions.js";
import {
  actionParams,
  initialStates,
  notDeployed,
  replayed,
  toActionRecord,
  type ActionFilter,
  type ActionRecord,
  type ActionRow,
  type EstateLedger,
  type StateChange,
} from "./ledger.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS opspilot_ops_service_state (
  service TEXT NOT NULL, environment TEXT NOT NULL, status TEXT NOT NULL, version TEXT NOT NULL,
  previous_version TEXT, restart_count INTEGER NOT NULL DEFAULT 0, last_restart_at TEXT,
  updated_at TEXT NOT NULL, PRIMARY KEY (service, environment));
CREATE TABLE IF NOT EXISTS opspilot_ops_actions (
  id BIGSERIAL PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, action TEXT NOT NULL,
  service TEXT NOT NULL, environment TEXT NOT NULL, detail TEXT NOT NULL, created_at TEXT NOT NULL);
`;

const ACTION_WHERE =
  "WHERE ($1::text IS NULL OR action = $2) AND ($3::text IS NULL OR service = $4) AND ($5::text IS NULL OR environment = $6)";

const STATE_COLUMNS =
  "service, environment, status, version, previous_version, restart_count, last_restart_at, updated_at";

/**
 * The demo estate's mutable state in PostgreSQL, shared by every replica: a restart applied
 * through one is seen by all, and a key applied by one is never applied by another. A write
 * locks its service's row, so writes to one service queue and writes to others do not wait.
 */
export class PostgresLedger implements EstateLedger {
  private constructor(private readonly pool: pg.Pool) {}

  /** Creates the tables when missing and seeds the dataset's state once (earlier changes are kept). */
  static async open(pool: pg.Pool, now = new Date()): Promise<PostgresLedger> {
    await withSetupLock(pool, async () => {
      await pool.query(SCHEMA);
      const rows = initialStates(now.toISOString());
      await pool.query(
        `INSERT INTO opspilot_ops_service_state (${STATE_COLUMNS})
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS seed (service TEXT, environment TEXT, status TEXT,
           version TEXT, previous_version TEXT, restart_count INTEGER, last_restart_at TEXT, updated_at TEXT)
         ON CONFLICT DO NOTHING`,
        [JSON.stringify(rows)],
      );
    });
    return new PostgresLedger(pool);
  }

  async read(service: string, environment: string): Promise<ServiceStateRow> {
    const { rows } = await this.pool.query<ServiceStateRow>(
      `SELECT ${STATE_COLUMNS} FROM opspilot_ops_service_state WHERE service = $1 AND environment = $2`,
      [service, environment],
    );
    if (!rows[0]) throw notDeployed(service, environment);
    return rows[0];
  }

  async readAll(): Promise<ServiceStateRow[]> {
    const { rows } = await this.pool.query<ServiceStateRow>(`SELECT ${STATE_COLUMNS} FROM opspilot_ops_service_state`);
    return rows;
  }

  async applyOnce<Result>(
    request: ActionRequest,
    now: Date,
    change: (state: ServiceStateRow) => StateChange<Result>,
  ): Promise<ActionOutcome<Result>> {
    return inTransaction(this.pool, async (client) => {
      // Per-key lock first: two replicas applying one key queue here, and the second sees the first's row.
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [request.idempotencyKey]);
      const previous = await client.query<{ action: string; service: string; environment: string; detail: string }>(
        "SELECT action, service, environment, detail FROM opspilot_ops_actions WHERE idempotency_key = $1",
        [request.idempotencyKey],
      );
      if (previous.rows[0]) return replayed<Result>(previous.rows[0], request);
      const current = await client.query<ServiceStateRow>(
        `SELECT ${STATE_COLUMNS} FROM opspilot_ops_service_state WHERE service = $1 AND environment = $2 FOR UPDATE`,
        [request.service, request.environment],
      );
      if (!current.rows[0]) throw notDeployed(request.service, request.environment);
      const { next, result } = change(current.rows[0]);
      await client.query(
        `UPDATE opspilot_ops_service_state SET status = $3, version = $4, previous_version = $5, restart_count = $6,
           last_restart_at = $7, updated_at = $8 WHERE service = $1 AND environment = $2`,
        [
          request.service,
          request.environment,
          next.status,
          next.version,
          next.previous_version,
          next.restart_count,
          next.last_restart_at,
          next.updated_at,
        ],
      );
      await client.query(
        `INSERT INTO opspilot_ops_actions (idempotency_key, action, service, environment, detail, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          request.idempotencyKey,
          request.action,
          request.service,
          request.environment,
          JSON.stringify(result),
          now.toISOString(),
        ],
      );
      return { result, duplicate: false };
    });
  }

  async listActions(filter: ActionFilter = {}): Promise<ActionRecord[]> {
    const { rows } = await this.pool.query<ActionRow>(
      `SELECT * FROM opspilot_ops_actions ${ACTION_WHERE} ORDER BY id`,
      actionParams(filter),
    );
    return rows.map(toActionRecord);
  }

  async countActions(filter: ActionFilter = {}): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>(
      `SELECT COUNT(*) AS count FROM opspilot_ops_actions ${ACTION_WHERE}`,
      actionParams(filter),
    );
    return Number(rows[0]!.count);
  }
}
