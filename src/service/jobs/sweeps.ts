import { EXPIRY_SWEEP_MS } from "../approvals/expiry.js";
import type { IncidentWorker } from "../incidents/worker.js";
import type { Runtime } from "../runtime/runtime.js";
import type { JobDefinition } from "./job.js";

/** How often the `queue` job looks for queued messages a process that died (or another one) left waiting. */
export const QUEUE_SWEEP_MS = 5_000;

/** How often the `incidents` job retries incident messages a busy or paused thread held back. */
export const INCIDENT_SWEEP_MS = 5_000;

/** The `queue` job: delivers every thread's waiting messages, at start and every `everyMs`. */
export function queueJob(runtime: Pick<Runtime, "sweepQueue">, everyMs = QUEUE_SWEEP_MS): JobDefinition {
  return { name: "queue", schedule: { kind: "every", ms: everyMs, atStart: true }, run: () => runtime.sweepQueue() };
}

/** The `approval-expiry` job: expires the pauses whose approvals are past their time, at start and every `everyMs`. */
export function approvalExpiryJob(
  runtime: Pick<Runtime, "sweepApprovalExpiry">,
  everyMs = EXPIRY_SWEEP_MS,
): JobDefinition {
  return {
    name: "approval-expiry",
    schedule: { kind: "every", ms: everyMs, atStart: true },
    run: () => runtime.sweepApprovalExpiry(),
  };
}

/** The `incidents` job: recovers what a dead process left (first pass), then delivers waiting incident messages. */
export function incidentJob(worker: Pick<IncidentWorker, "sweep">, everyMs = INCIDENT_SWEEP_MS): JobDefinition {
  return { name: "incidents", schedule: { kind: "every", ms: everyMs, atStart: true }, run: () => worker.sweep() };
}
