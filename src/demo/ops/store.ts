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
  restartChange,
  rollbackChange,
  type ActionOutcome,
  type RestartResult,
  type RollbackResult,
} from "./actions.js";
import { SqliteLedger, type ActionFilter, type ActionRecord, type EstateLedger } from "./ledger.js";
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
  /** Where the mutable state lives (restarts, rollbacks); defaults to `db`'s own tables. */
  ledger?: EstateLedger;
}

/**
 * The demo operations estate: static data searchable in Chinese and English, in a SQLite
 * database the caller owns (the same file holds the checkpoints), and the mutable state that
 * restarts and rollbacks change, each applied at most once per idempotency key, in that
 * file or in the ledger given (PostgreSQL, shared by replicas).
 */
export class OpsStore {
  private readonly now: () => Date;
  private readonly ledger: EstateLedger;

  /** Creates the `ops_` tables when missing and loads the dataset once per database. */
  constructor(
    /** The open database; the store never closes it. */
    readonly db: Database,
    options: OpsStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.ledger = options.ledger ?? new SqliteLedger(db);
    prepareOpsSchema(db, this.now());
  }

  /** Services and environments matching a query in either language, best first. */
  async searchResources(
    query: string,
    options: { kind?: "service" | "environment"; limit?: number } = {},
  ): Promise<ResourceHit[]> {
    const language = detectLanguage(query);
    const hits = rankResources(this.db, query, { kind: options.kind, limit: options.limit ?? 10 });
    if (hits.length === 0) return [];
    const states = await this.ledger.readAll();
    const status = (service: string, environment: string) =>
      states.find((row) => row.service === service && row.environment === environment)?.status ?? "unknown";
    return hits.map((hit) => {
      const environment = ENVIRONMENTS.find((candidate) => candidate.id === hit.ref);
      if (hit.kind === "environment" && environment)
        return toEnvironmentHit(
          environment,
          SERVICES.map((service) => [service.id, status(service.id, environment.id)]),
        );
      const service = SERVICES.find((candidate) => candidate.id === hit.ref) as ServiceRecord;
      return toServiceHit(
        service,
        ENVIRONMENTS.map((candidate) => [candidate.id, status(service.id, candidate.id)]),
        language,
      );
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
  async getMetrics(service: string, environment: EnvironmentId): Promise<MetricsView> {
    const target = this.resolveService(service);
    const metrics = METRICS.find(
      (row) => row.service === target.id && row.environment === environment,
    ) as MetricsRecord;
    return toMetricsView(target, await this.ledger.read(target.id, environment), metrics, this.now());
  }

  /** Restarts a service (id or name) once per idempotency key. */
  restartService(request: {
    service: string;
    environment: EnvironmentId;
    reason?: string;
    idempotencyKey: string;
  }): Promise<ActionOutcome<RestartResult>> {
    const target = this.resolveService(request.service);
    const restart = { ...request, service: target.id, action: "restart" as const };
    const now = this.now();
    return this.ledger.applyOnce(restart, now, (state) => restartChange(state, restart, now));
  }

  /** Rolls a service (id or name) back to its previous (or a named earlier) release once per idempotency key. */
  rollbackDeploy(request: {
    service: string;
    environment: EnvironmentId;
    toVersion?: string;
    idempotencyKey: string;
  }): Promise<ActionOutcome<RollbackResult>> {
    const target = this.resolveService(request.service);
    const rollback = { ...request, service: target.id, target, action: "rollback" as const };
    const now = this.now();
    return this.ledger.applyOnce(rollback, now, (state) => rollbackChange(state, rollback, now));
  }

  /** Recorded restarts and rollbacks, oldest first. */
  listActions(filter: ActionFilter = {}): Promise<ActionRecord[]> {
    return this.ledger.listActions(filter);
  }

  /** Number of recorded restarts and rollbacks matching the filter. */
  countActions(filter: ActionFilter = {}): Promise<number> {
    return this.ledger.countActions(filter);
  }
}
