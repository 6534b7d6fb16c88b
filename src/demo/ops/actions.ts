import { ToolError } from "../../contracts/errors.js";
import type { EnvironmentId, ServiceRecord, ServiceStatus } from "./data/index.js";
import type { StateChange } from "./ledger.js";

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

/** Restarts a service (in the demo estate): bumps its restart count and marks it recovering. */
export function restartChange(
  state: ServiceStateRow,
  request: ActionRequest & { reason?: string },
  now: Date,
): StateChange<RestartResult> {
  const restartedAt = now.toISOString();
  return {
    next: {
      ...state,
      status: "recovering",
      restart_count: state.restart_count + 1,
      last_restart_at: restartedAt,
      updated_at: restartedAt,
    },
    result: {
      action: "restart",
      service: request.service,
      environment: request.environment,
      restartedAt,
      restartCount: state.restart_count + 1,
      statusBefore: state.status,
      statusAfter: "recovering",
      version: state.version,
      reason: request.reason ?? null,
    },
  };
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
export function rollbackChange(
  state: ServiceStateRow,
  request: ActionRequest & { target: ServiceRecord; toVersion?: string },
  now: Date,
): StateChange<RollbackResult> {
  const toVersion = rollbackTarget(request.target, state, request.toVersion);
  const releases = request.target.releases;
  const rolledBackAt = now.toISOString();
  return {
    next: {
      ...state,
      status: "recovering",
      version: toVersion,
      previous_version: releases[releases.indexOf(toVersion) - 1] ?? null,
      updated_at: rolledBackAt,
    },
    result: {
      action: "rollback",
      service: request.service,
      environment: request.environment,
      rolledBackAt,
      fromVersion: state.version,
      toVersion,
      statusBefore: state.status,
      statusAfter: "recovering",
    },
  };
}
