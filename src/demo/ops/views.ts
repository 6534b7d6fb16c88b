import type { EnvironmentId, EnvironmentRecord, MetricsRecord, RunbookRecord, ServiceRecord } from "./data/index.js";
import type { ServiceStateRow } from "./actions.js";
import type { Language } from "../../contracts/language.js";

/** A service or environment found by `search_resource`. */
export interface ResourceHit {
  /** Service id (`payment-service`) or environment id (`prod`). */
  id: string;
  /** English name. */
  name: string;
  /** Chinese name. */
  nameZh: string;
  /** What the record is. */
  kind: "service" | "environment";
  /** Owning team. */
  owner: string;
  /** Service tier (1 most critical); null for environments. */
  tier: number | null;
  /** Services: status per environment ("prod: degraded, staging: healthy"); environments: a health summary. */
  status: string;
  /** One sentence in the query's language (environments: bilingual). */
  description: string;
}

/** A runbook found by `search_docs`. */
export interface RunbookHit {
  /** Runbook id, e.g. `RB-003`. */
  id: string;
  /** English title. */
  title: string;
  /** Chinese title. */
  titleZh: string;
  /** Relevance (bm25, higher is better); comparable only within one search. */
  score: number;
  /** Service ids it covers; empty means any service. */
  services: readonly string[];
  /** Error codes it covers. */
  errorCodes: readonly string[];
  /** Handling steps in order, in the query's language. */
  advice: string[];
}

/** Current metrics of a service in an environment, with its live status and version. */
export interface MetricsView {
  /** Service id. */
  service: string;
  /** English name. */
  name: string;
  /** Chinese name. */
  nameZh: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** Status now (changed by restarts and rollbacks). */
  status: string;
  /** Version running now. */
  version: string;
  /** Default rollback target, or null. */
  previousVersion: string | null;
  /** Restarts recorded so far. */
  restartCount: number;
  /** Last restart (ISO), or null. */
  lastRestartAt: string | null;
  /** Measurements over `window`. */
  metrics: Omit<MetricsRecord, "service" | "environment">;
  /** Period the metrics cover. */
  window: string;
  /** When they were read (ISO). */
  capturedAt: string;
}

/** "prod: degraded, staging: healthy". */
function describeServiceStatus(statuses: ReadonlyArray<readonly [string, string]>): string {
  return statuses.map(([environment, status]) => `${environment}: ${status}`).join(", ");
}

/** "all 10 services healthy" or "1 of 10 services not healthy: payment-service (degraded)". */
function describeEnvironmentStatus(
  environment: EnvironmentId,
  statuses: ReadonlyArray<readonly [string, string]>,
): string {
  const unhealthy = statuses.filter(([, status]) => status !== "healthy");
  if (unhealthy.length === 0) return `${environment}: all ${statuses.length} services healthy`;
  const list = unhealthy.map(([service, status]) => `${service} (${status})`).join(", ");
  return `${environment}: ${unhealthy.length} of ${statuses.length} services not healthy: ${list}`;
}

/** Shapes a service for `search_resource`: status per environment, description in the query's language. */
export function toServiceHit(
  service: ServiceRecord,
  statuses: ReadonlyArray<readonly [string, string]>,
  language: Language,
): ResourceHit {
  return {
    id: service.id,
    name: service.name,
    nameZh: service.nameZh,
    kind: "service",
    owner: service.owner,
    tier: service.tier,
    status: describeServiceStatus(statuses),
    description: language === "zh" ? service.descriptionZh : service.description,
  };
}

/** Shapes an environment for `search_resource`, with a health summary of its services. */
export function toEnvironmentHit(
  environment: EnvironmentRecord,
  statuses: ReadonlyArray<readonly [string, string]>,
): ResourceHit {
  return {
    id: environment.id,
    name: environment.name,
    nameZh: environment.nameZh,
    kind: "environment",
    owner: environment.owner,
    tier: null,
    status: describeEnvironmentStatus(environment.id, statuses),
    description: environment.description,
  };
}

/** Shapes a runbook for the model, advice in one language. */
export function toRunbookHit(doc: RunbookRecord, score: number, language: Language): RunbookHit {
  return {
    id: doc.id,
    title: doc.title,
    titleZh: doc.titleZh,
    score,
    services: doc.services,
    errorCodes: doc.errorCodes,
    advice: doc.advice.map((step) => (language === "zh" ? step.zh : step.en)),
  };
}

/** Shapes metrics and live state for the model. */
export function toMetricsView(
  service: ServiceRecord,
  state: ServiceStateRow,
  metrics: MetricsRecord,
  now: Date,
): MetricsView {
  const { service: _service, environment: _environment, ...measurements } = metrics;
  return {
    service: service.id,
    name: service.name,
    nameZh: service.nameZh,
    environment: metrics.environment,
    status: state.status,
    version: state.version,
    previousVersion: state.previous_version,
    restartCount: state.restart_count,
    lastRestartAt: state.last_restart_at,
    metrics: measurements,
    window: "last 5 minutes",
    capturedAt: now.toISOString(),
  };
}
