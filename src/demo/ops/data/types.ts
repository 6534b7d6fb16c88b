/** Environments the demo dataset knows. */
export const ENVIRONMENT_IDS = ["prod", "staging"] as const;
/** One environment id: `prod` or `staging`. */
export type EnvironmentId = (typeof ENVIRONMENT_IDS)[number];

/** Health of a service in one environment; `recovering` follows a restart or rollback. */
export type ServiceStatus = "healthy" | "degraded" | "down" | "recovering";

/** Log severities the dataset uses. */
export const LOG_LEVELS = ["ERROR", "WARN", "INFO"] as const;
/** One log severity. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a service runs in one environment when the dataset is first loaded. */
export interface Deployment {
  /** Version currently deployed. */
  version: string;
  /** Version deployed before it (the default rollback target), or null. */
  previousVersion: string | null;
  /** Health at load time. */
  status: ServiceStatus;
}

/** A service of the demo estate. */
export interface ServiceRecord {
  /** Stable kebab-case id, e.g. `payment-service`. */
  id: string;
  /** English name. */
  name: string;
  /** Chinese name. */
  nameZh: string;
  /** Other names people use for it (either language); used to resolve service names. */
  aliases: readonly string[];
  /** Owning team. */
  owner: string;
  /** Criticality: 1 is customer-facing and revenue-critical. */
  tier: 1 | 2 | 3;
  /** One sentence in English. */
  description: string;
  /** One sentence in Chinese. */
  descriptionZh: string;
  /** Ids of the services it calls. */
  dependencies: readonly string[];
  /** Released versions, oldest first; rollbacks may only target these. */
  releases: readonly string[];
  /** Deployment per environment at load time. */
  deployments: Record<EnvironmentId, Deployment>;
}

/** An environment of the demo estate. */
export interface EnvironmentRecord {
  /** `prod` or `staging`. */
  id: EnvironmentId;
  /** English name. */
  name: string;
  /** Chinese name. */
  nameZh: string;
  /** Team that runs it. */
  owner: string;
  /** One sentence, bilingual. */
  description: string;
  /** Other names people use for it. */
  aliases: readonly string[];
}

/** One handling step, in both languages. */
export interface AdviceStep {
  /** English text. */
  en: string;
  /** Chinese text. */
  zh: string;
}

/** A runbook document. */
export interface RunbookRecord {
  /** Stable id, e.g. `RB-003`. */
  id: string;
  /** English title. */
  title: string;
  /** Chinese title. */
  titleZh: string;
  /** Free keywords in either language. */
  tags: readonly string[];
  /** Service ids it covers; empty means any service. */
  services: readonly string[];
  /** Error codes it covers. */
  errorCodes: readonly string[];
  /** What the problem is, in English. */
  summary: string;
  /** What the problem is, in Chinese. */
  summaryZh: string;
  /** Concrete handling steps, in order. */
  advice: readonly AdviceStep[];
}

/** One log line; its timestamp is `secondsAgo` before the store's clock, so the data stays recent. */
export interface LogRecord {
  /** Service id. */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** Severity. */
  level: LogLevel;
  /** Error code, or null for plain informational lines. */
  code: string | null;
  /** Message text (English, sometimes Chinese). */
  message: string;
  /** Age of the line in seconds, relative to the store's clock. */
  secondsAgo: number;
}

/** Current metrics of one service in one environment (last 5 minutes). */
export interface MetricsRecord {
  /** Service id. */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** Share of failed requests, in percent. */
  errorRatePercent: number;
  /** 95th percentile latency in milliseconds. */
  p95LatencyMs: number;
  /** Requests per second. */
  rps: number;
  /** CPU use across instances, in percent. */
  cpuPercent: number;
  /** Memory use across instances, in percent. */
  memoryPercent: number;
  /** Running instances. */
  instances: number;
}
