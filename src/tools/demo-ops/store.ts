import type { Database } from "better-sqlite3";
import {
  ENVIRONMENTS,
  METRICS,
  RUNBOOKS,
  SERVICES,
  type EnvironmentId,
  type MetricsRecord,
  type RunbookRecord,
  type ServiceRecord,
} from "./data/index.js";
import {
  applyRestart,
  applyRollback,
  readState,
  type ActionKind,
  type ActionOutcome,
  type RestartResult,
  type RollbackResult,
} from "./actions.js";
import { queryLogs, type LogFilter, type LogSearchResult } from "./logs.js";
import { resolveService } from "./resolve.js";
import { prepareOpsSchema } from "./schema.js";
import { rankResources, rankRunbooks } from "./search.js";
import { detectLanguage } from "../../contracts/language.js";
import {
  toEnvironmentHit,
  toMetricsView,
  toRunbookHit,
  toServiceHit,
  type MetricsView,
  type ResourceHit,
  type RunbookHit,
} from "./views.js";

/** Options of an ops store. */
export interface OpsStoreOptions {
  /** Clock for log timestamps and action times; tests pin it. Defaults to the system clock. */
  now?: () => Date;
}

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

interface ActionRow {
  id: number;
  idempotency_key: string;
  action: ActionKind;
  service: string;
  environment: EnvironmentId;
  detail: string;
  created_at: string;
}

const ACTION_WHERE =
  "WHERE (? IS NULL OR action = ?) AND (? IS NULL OR service = ?) AND (? IS NULL OR environment = ?)";

/**
 * The demo operations estate over a SQLite database the caller owns (the same file holds
 * the checkpoints): static data searchable in Chinese and English, and the mutable state
 * that restarts and rollbacks change, each applied at most once per idempotency key.
 */
export class OpsStore {
  private readonly now: () => Date;

  /** Creates the `ops_` tables when missing and loads the dataset once per database. */
  constructor(
    /** The open database; the store never closes it. */
    readonly db: Database,
    options: OpsStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    prepareOpsSchema(db, this.now());
  }

  /** Services and environments matching a query in either language, best first. */
  searchResources(query: string, options: { kind?: "service" | "environment"; limit?: number } = {}): ResourceHit[] {
    const language = detectLanguage(query);
    return rankResources(this.db, query, { kind: options.kind, limit: options.limit ?? 10 }).map((hit) => {
      const environment = ENVIRONMENTS.find((candidate) => candidate.id === hit.ref);
      if (hit.kind === "environment" && environment)
        return toEnvironmentHit(environment, this.statusesIn(environment.id));
      const service = SERVICES.find((candidate) => candidate.id === hit.ref) as ServiceRecord;
      return toServiceHit(service, this.statusesOf(service.id), language);
    });
  }

  /** Runbooks for a question or error codes, best first; advice in the query's language. */
  searchDocs(query: string, limit = 3): RunbookHit[] {
    const language = detectLanguage(query);
    return rankRunbooks(this.db, query, { limit }).map((hit) =>
      toRunbookHit(RUNBOOKS.find((doc) => doc.id === hit.ref) as RunbookRecord, hit.score, language),
    );
  }

  /** The service an id or English/Chinese name means; throws `ToolError("not_found")` naming close matches. */
  resolveService(name: string): ServiceRecord {
    return resolveService(this.db, name);
  }

  /** Log lines of a service (id or name) in an environment, counted per error code. */
  searchLogs(filter: LogFilter): LogSearchResult {
    return queryLogs(this.db, { ...filter, service: this.resolveService(filter.service).id }, this.now());
  }

  /** Current metrics, status and version of a service (id or name) in an environment. */
  getMetrics(service: string, environment: EnvironmentId): MetricsView {
    const target = this.resolveService(service);
    const metrics = METRICS.find(
      (row) => row.service === target.id && row.environment === environment,
    ) as MetricsRecord;
    return toMetricsView(target, readState(this.db, target.id, environment), metrics, this.now());
  }

  /** Restarts a service (id or name) once per idempotency key. */
  restartService(request: {
    service: string;
    environment: EnvironmentId;
    reason?: string;
    idempotencyKey: string;
  }): ActionOutcome<RestartResult> {
    const target = this.resolveService(request.service);
    return applyRestart(this.db, { ...request, service: target.id, action: "restart" }, this.now());
  }

  /** Rolls a service (id or name) back to its previous (or a named earlier) release once per idempotency key. */
  rollbackDeploy(request: {
    service: string;
    environment: EnvironmentId;
    toVersion?: string;
    idempotencyKey: string;
  }): ActionOutcome<RollbackResult> {
    const target = this.resolveService(request.service);
    return applyRollback(this.db, { ...request, service: target.id, target, action: "rollback" }, this.now());
  }

  /** Recorded restarts and rollbacks, oldest first. */
  listActions(filter: ActionFilter = {}): ActionRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM ops_actions ${ACTION_WHERE} ORDER BY id`)
      .all(...actionParams(filter)) as ActionRow[];
    return rows.map((row) => ({
      id: row.id,
      idempotencyKey: row.idempotency_key,
      action: row.action,
      service: row.service,
      environment: row.environment,
      detail: JSON.parse(row.detail) as unknown,
      createdAt: row.created_at,
    }));
  }

  /** Number of recorded restarts and rollbacks matching the filter. */
  countActions(filter: ActionFilter = {}): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS count FROM ops_actions ${ACTION_WHERE}`)
      .get(...actionParams(filter));
    return (row as { count: number }).count;
  }

  /** Status of every service in an environment, as [service, status]. */
  private statusesIn(environment: EnvironmentId): Array<[string, string]> {
    return SERVICES.map((service) => [service.id, readState(this.db, service.id, environment).status]);
  }

  /** Status of a service in every environment, as [environment, status]. */
  private statusesOf(serviceId: string): Array<[string, string]> {
    return ENVIRONMENTS.map((environment) => [environment.id, readState(this.db, serviceId, environment.id).status]);
  }
}

/** Bind values for `ACTION_WHERE`. */
function actionParams(filter: ActionFilter): unknown[] {
  return [filter.action, filter.service, filter.environment].flatMap((value) => [value ?? null, value ?? null]);
}
