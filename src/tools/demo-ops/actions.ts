import type { Database } from "better-sqlite3";
import { ToolError } from "../../contracts/errors.js";
import type { EnvironmentId, ServiceRecord, ServiceStatus } from "./data/index.js";

/** Kinds of change the ops store records. */
export type ActionKind = "restart" | "rollback";

/** What a restart did. */
export interface RestartResult {
  /** Kind of change. */
  action: "restart";
  /** Service id. */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** When the restart was applied (ISO). */
  restartedAt: string;
  /** Restarts of this service in this environment so far, this one included. */
  restartCount: number;
  /** Status before the restart. */
  statusBefore: ServiceStatus;
  /** Always `recovering`: a restart does not prove the cause is gone; watch the metrics. */
  statusAfter: ServiceStatus;
  /** Version running (unchanged by a restart). */
  version: string;
  /** Why, as the caller gave it; null when not given. */
  reason: string | null;
}

/** What a rollback did. */
export interface RollbackResult {
  /** Kind of change. */
  action: "rollback";
  /** Service id. */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** When the rollback was applied (ISO). */
  rolledBackAt: string;
  /** Version that was running. */
  fromVersion: string;
  /** Version running now. */
  toVersion: string;
  /** Status before the rollback. */
  statusBefore: ServiceStatus;
  /** Always `recovering`: watch the metrics before calling it fixed. */
  statusAfter: ServiceStatus;
}

/** A write's result and whether its idempotency key had already been applied. */
export interface ActionOutcome<Result> {
  /** The recorded result: on a duplicate, exactly what the first call returned. */
  result: Result;
  /** True when nothing was applied because the key was seen before. */
  duplicate: boolean;
}

/** The mutable state of one service in one environment. */
export interface ServiceStateRow {
  /** Service id. */
  service: string;
  /** Environment id. */
  environment: string;
  /** Current status. */
  status: ServiceStatus;
  /** Version running. */
  version: string;
  /** Default rollback target, or null. */
  previous_version: string | null;
  /** Restarts applied so far. */
  restart_count: number;
  /** Last restart (ISO), or null. */
  last_restart_at: string | null;
  /** Last change (ISO). */
  updated_at: string;
}

/** Reads the mutable state of a service in an environment. */
export function readState(db: Database, service: string, environment: string): ServiceStateRow {
  const row = db
    .prepare("SELECT * FROM ops_service_state WHERE service = ? AND environment = ?")
    .get(service, environment);
  if (!row) throw new ToolError("not_found", `${service} is not deployed in ${environment}.`);
  return row as ServiceStateRow;
}

/** Who is asking for a write, and under which key it applies at most once. */
export interface ActionRequest {
  /** Kind of change. */
  action: ActionKind;
  /** Service id (resolved). */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** `threadId:callId`; the change applies at most once per key. */
  idempotencyKey: string;
}

/**
 * Applies a write at most once per idempotency key, atomically under the write lock: when the
 * key was recorded before, returns the recorded result and applies nothing.
 */
function applyOnce<Result>(
  db: Database,
  request: ActionRequest,
  now: Date,
  apply: () => Result,
): ActionOutcome<Result> {
  return db
    .transaction(() => {
      const previous = db
        .prepare("SELECT action, service, environment, detail FROM ops_actions WHERE idempotency_key = ?")
        .get(request.idempotencyKey) as
        { action: string; service: string; environment: string; detail: string } | undefined;
      if (previous) {
        if (
          previous.action !== request.action ||
          previous.service !== request.service ||
          previous.environment !== request.environment
        ) {
          throw new ToolError("internal", "The idempotency key was already used for a different action.");
        }
        return { result: JSON.parse(previous.detail) as Result, duplicate: true };
      }
      const result = apply();
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

/** Restarts a service (in the demo estate): bumps its restart count and marks it recovering. */
export function applyRestart(
  db: Database,
  request: ActionRequest & { reason?: string },
  now: Date,
): ActionOutcome<RestartResult> {
  return applyOnce(db, request, now, () => {
    const state = readState(db, request.service, request.environment);
    const restartedAt = now.toISOString();
    db.prepare(
      `UPDATE ops_service_state SET status = 'recovering', restart_count = restart_count + 1, last_restart_at = ?, updated_at = ?
       WHERE service = ? AND environment = ?`,
    ).run(restartedAt, restartedAt, request.service, request.environment);
    return {
      action: "restart",
      service: request.service,
      environment: request.environment,
      restartedAt,
      restartCount: state.restart_count + 1,
      statusBefore: state.status,
      statusAfter: "recovering",
      version: state.version,
      reason: request.reason ?? null,
    };
  });
}

/** The rollback target: the requested release, or the previous version; refuses anything not older than current. */
function rollbackTarget(service: ServiceRecord, state: ServiceStateRow, toVersion: string | undefined): string {
  const current = service.releases.indexOf(state.version);
  const earlier = service.releases.slice(0, Math.max(current, 0));
  if (toVersion === undefined) {
    if (state.previous_version === null)
      throw new ToolError("not_found", `${service.id} has no earlier version to roll back to.`);
    return state.previous_version;
  }
  if (!earlier.includes(toVersion)) {
    const known = earlier.length > 0 ? earlier.join(", ") : "none";
    throw new ToolError(
      "invalid_args",
      `${toVersion} is not an earlier release of ${service.id} (running ${state.version}; earlier releases: ${known}).`,
    );
  }
  return toVersion;
}

/** Rolls a service back (in the demo estate) to the previous or a named earlier release. */
export function applyRollback(
  db: Database,
  request: ActionRequest & { target: ServiceRecord; toVersion?: string },
  now: Date,
): ActionOutcome<RollbackResult> {
  return applyOnce(db, request, now, () => {
    const state = readState(db, request.service, request.environment);
    const toVersion = rollbackTarget(request.target, state, request.toVersion);
    const releases = request.target.releases;
    const previous = releases[releases.indexOf(toVersion) - 1] ?? null;
    const rolledBackAt = now.toISOString();
    db.prepare(
      `UPDATE ops_service_state SET status = 'recovering', version = ?, previous_version = ?, updated_at = ?
       WHERE service = ? AND environment = ?`,
    ).run(toVersion, previous, rolledBackAt, request.service, request.environment);
    return {
      action: "rollback",
      service: request.service,
      environment: request.environment,
      rolledBackAt,
      fromVersion: state.version,
      toVersion,
      statusBefore: state.status,
      statusAfter: "recovering",
    };
  });
}
