import type { Database } from "better-sqlite3";
import { ToolError } from "../../contracts/errors.js";
import { DATASET, type EnvironmentId } from "./data/index.js";
import type { ActionKind, ActionOutcome, ActionRequest, ServiceStateRow } from "./actions.js";

/** Narrows `listActions` and `countActions`. */
export interface ActionFilter {
  /** Only this kind of change. */
  action?: ActionKind;
  /** Only this service id. */
  service?: string;
  /** Only this environment. */
  environment?: EnvironmentId;
}

/** One recorded restart or rollback. */
export interface ActionRecord {
  /** Row id, in order of application. */
  id: number;
  /** Key the change was applied under. */
  idempotencyKey: string;
  /** Kind of change. */
  action: ActionKind;
  /** Service id. */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** The result the write returned. */
  detail: unknown;
  /** When it was applied (ISO). */
  createdAt: string;
}

/** What a write changes: the service's new state, and the result the tool returns (recorded under its key). */
export interface StateChange<Result> {
  /** The whole row after the change. */
  next: ServiceStateRow;
  /** What the write returns, now and to every later call with its key. */
  result: Result;
}

/**
 * The mutable part of the demo estate: each service's state per environment and the
 * restarts and rollbacks applied, at most once per idempotency key. In the SQLite file
 * beside the static dataset, or in PostgreSQL when replicas must share it.
 */
export interface EstateLedger {
  /** The state of a service in an environment; `ToolError("not_found")` when it is not deployed there. */
  read(service: string, environment: string): Promise<ServiceStateRow>;
  /** Every service's state in every environment. */
  readAll(): Promise<ServiceStateRow[]>;
  /**
   * Applies `change` to the current state under `request.idempotencyKey`, atomically: when the
   * key was applied before, returns the recorded result and changes nothing; a key used for
   * another action, service or environment is refused.
   */
  applyOnce<Result>(
    request: ActionRequest,
    now: Date,
    change: (state: ServiceStateRow) => StateChange<Result>,
  ): Promise<ActionOutcome<Result>>;
  /** Recorded restarts and rollbacks, oldest first. */
  listActions(filter?: ActionFilter): Promise<ActionRecord[]>;
  /** Number of recorded restarts and rollbacks matching the filter. */
  countActions(filter?: ActionFilter): Promise<number>;
}

/** A recorded action as both databases return it (ids and times as the driver gives them). */
export interface ActionRow {
  id: number | string;
  idempotency_key: string;
  action: ActionKind;
  service: string;
  environment: EnvironmentId;
  detail: string;
  created_at: string;
}

/** The state every service starts in, per environment, from the dataset. */
export function initialStates(now: string): ServiceStateRow[] {
  return DATASET.services.flatMap((service) =>
    Object.entries(service.deployments).map(([environment, deployment]) => ({
      service: service.id,
      environment,
      status: deployment.status,
      version: deployment.version,
      previous_version: deployment.previousVersion,
      restart_count: 0,
      last_restart_at: null,
      updated_at: now,
    })),
  );
}

/** Bind values for a filter, in the order `(action, service, environment)`, each twice (`? IS NULL OR col = ?`). */
export function actionParams(filter: ActionFilter): Array<string | null> {
  return [filter.action, filter.service, filter.environment].flatMap((value) => [value ?? null, value ?? null]);
}

/** A row as a record. */
export function toActionRecord(row: ActionRow): ActionRecord {
  return {
    id: Number(row.id),
    idempotencyKey: row.idempotency_key,
    action: row.action,
    service: row.service,
    environment: row.environment,
    detail: JSON.parse(row.detail) as unknown,
    createdAt: row.created_at,
  };
}

/** The recorded result under a key, or a refusal when the key was used for a different change. */
export function replayed<Result>(
  previous: { action: string; service: string; environment: string; detail: string },
  request: ActionRequest,
): ActionOutcome<Result> {
  if (
    previous.action !== request.action ||
    previous.service !== request.service ||
    previous.environment !== request.environment
  ) {
    throw new ToolError("internal", "The idempotency key was already used for a different action.");
  }
  return { result: JSON.parse(previous.detail) as Result, duplicate: true };
}

/** `ToolError("not_found")` for a service not deployed in an environment. */
export function notDeployed(service: string, environment: string): ToolError {
  return new ToolError("not_found", `${service} is not deployed in ${environment}.`);
}

const ACTION_WHERE =
  "WHERE (? IS NULL OR action = ?) AND (? IS NULL OR service = ?) AND (? IS NULL OR environment = ?)";

/** The ledger in the SQLite file of the static dataset (`ops_service_state`, `ops_actions`). */
export class SqliteLedger implements EstateLedger {
  constructor(private readonly db: Database) {}

  async read(service: string, environment: string): Promise<ServiceStateRow> {
    return this.readNow(service, environment);
  }

  async readAll(): Promise<ServiceStateRow[]> {
    return this.db.prepare("SELECT * FROM ops_service_state").all() as ServiceStateRow[];
  }

  async applyOnce<Result>(
    request: ActionRequest,
    now: Date,
    change: (state: ServiceStateRow) => StateChange<Result>,
  ): Promise<ActionOutcome<Result>> {
    const db = this.db;
    return db
      .transaction((): ActionOutcome<Result> => {
        const previous = db
          .prepare("SELECT action, service, environment, detail FROM ops_actions WHERE idempotency_key = ?")
          .get(request.idempotencyKey) as
          { action: string; service: string; environment: string; detail: string } | undefined;
        if (previous) return replayed<Result>(previous, request);
        const { next, result } = change(this.readNow(request.service, request.environment));
        db.prepare(
          `UPDATE ops_service_state SET status = ?, version = ?, previous_version = ?, restart_count = ?,
             last_restart_at = ?, updated_at = ? WHERE service = ? AND environment = ?`,
        ).run(
          next.status,
          next.version,
          next.previous_version,
          next.restart_count,
          next.last_restart_at,
          next.updated_at,
          request.service,
          request.environment,
        );
        db.prepare(
          "INSERT INTO ops_actions (idempotency_key, action, service, environment, detail, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        ).run(
          request.idempotencyKey,
          request.action,
          request.service,
          request.environment,
          JSON.stringify(result),
          now.toISOString(),
        );
        return { result, duplicate: false };
      })
      .immediate();
  }

  async listActions(filter: ActionFilter = {}): Promise<ActionRecord[]> {
    const rows = this.db
      .prepare(`SELECT * FROM ops_actions ${ACTION_WHERE} ORDER BY id`)
      .all(...actionParams(filter)) as ActionRow[];
    return rows.map(toActionRecord);
  }

  async countActions(filter: ActionFilter = {}): Promise<number> {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS count FROM ops_actions ${ACTION_WHERE}`)
      .get(...actionParams(filter));
    return (row as { count: number }).count;
  }

  private readNow(service: string, environment: string): ServiceStateRow {
    const row = this.db
      .prepare("SELECT * FROM ops_service_state WHERE service = ? AND environment = ?")
      .get(service, environment);
    if (!row) throw notDeployed(service, environment);
    return row as ServiceStateRow;
  }
}
