import type { OpsPilotGraph } from "../agent/graph.js";
import type { Env } from "../config/env.js";
import type { ScheduleConfig } from "../config/schedules-schema.js";
import { parseDuration } from "../contracts/formats/duration.js";
import { createIncidentWorker, type IncidentWorker } from "../service/incidents/worker.js";
import type { JobRunReport } from "../service/jobs/job.js";
import {
  DEPENDENCY_PROBE_MS,
  dependencyProbeJob,
  type DependencyProbeJobOptions,
} from "../service/jobs/dependency-probes.js";
import { createJobEngine, type JobEngine } from "../service/jobs/engine.js";
import { KUBERNETES_ACCESS_MS, kubernetesAccessJob } from "../service/jobs/kubernetes-access.js";
import { INCIDENT_RECONCILE_MS, incidentReconcileJob } from "../service/jobs/incident-reconcile.js";
import { createSilenceReconciler } from "../service/incidents/silence-reconciler.js";
import type { ToolsetEndpoint } from "../config/toolsets-schema.js";
import { createToolsetClient } from "../tools/toolsets/http-client.js";
import { retentionJob } from "../service/jobs/retention.js";
import { approvalExpiryJob, incidentJob, queueJob } from "../service/jobs/sweeps.js";
import { takeoverJob } from "../service/jobs/takeover.js";
import type { Logger } from "../service/observability/logger.js";
import type { Runtime } from "../service/runtime/runtime.js";
import { scheduleJobs } from "../service/schedules/schedules.js";
import type { ScheduleFindings } from "../service/schedules/schedule-findings.js";
import { publicUrlOf } from "./notices/notifiers.js";
import type { ToolSource } from "../tools/source.js";
import { accessReviewsOf } from "./sources/kubernetes-source.js";
import type { IncidentRow, Storage } from "../storage/types.js";

/** The names of the app's sweeps, whose intervals tests may shorten. */
export type SweepName = "incidents" | "queue" | "approval-expiry" | "takeover";

/** What the app's background work is built from. */
export interface BackgroundParts {
  env: Env;
  runtime: Runtime;
  graph: OpsPilotGraph;
  storage: Storage;
  logger: Logger;
  /** Shorter sweep intervals (tests); the defaults otherwise. */
  sweepMs?: Partial<Record<SweepName, number>>;
  /** Told of every job run (the job metrics). */
  onJobRun?: (report: JobRunReport) => void;
  /** The probes of this process's dependencies (model, toolsets, MCP servers). */
  probes?: DependencyProbeJobOptions["probes"];
  /** Told of their results (the dependency metrics); without it the probes are not scheduled. */
  onDependencyProbes?: DependencyProbeJobOptions["onResults"];
  /** The config file's scheduled investigations: one job each. */
  schedules?: readonly ScheduleConfig[];
  /** The app's tool sources: a Kubernetes one gets the `kubernetes-access` job. */
  toolSources?: readonly ToolSource[];
  /** Alertmanager's API (`toolsets.alertmanager`): with it, incidents are reconciled with it on a schedule. */
  alertmanager?: ToolsetEndpoint;
  /** Told of each incident the reconciliation resolved (the resolved notice); must return at once. */
  onIncidentResolved?: (incident: IncidentRow) => void;
  /** The incidents of schedules' findings (`incident: true` schedules). */
  findings?: () => Pick<ScheduleFindings, "clear">;
}

/** The app's background work: the one engine, and the incident worker alert intake queues to. */
export interface Background {
  jobs: JobEngine;
  incidentWorker: IncidentWorker;
}

/**
 * Registers every job of the app on one engine: `incidents`, `queue`, `approval-expiry`, `takeover`,
 * `dependency-probes` every `OPSPILOT_DEPENDENCY_PROBE_INTERVAL` when someone takes its results,
 * `kubernetes-access` every `OPSPILOT_KUBERNETES_ACCESS_INTERVAL` with `toolsets.kubernetes`,
 * `incident-reconcile` every `OPSPILOT_INCIDENT_RECONCILE_INTERVAL` when Alertmanager is configured,
 * `retention` with `OPSPILOT_RETENTION_DAYS`, and one `schedule:<name>` per configured schedule.
 * Nothing runs until the app starts it.
 */
export function createBackground(parts: BackgroundParts): Background {
  const { env, runtime, storage, logger, sweepMs = {} } = parts;
  const jobs = createJobEngine({ claims: storage.jobClaims, logger, onRun: parts.onJobRun });
  // Investigations run as OPSPILOT_ALERT_USER, whichever process took the alert in.
  const incidentWorker = createIncidentWorker({
    runtime,
    storage,
    graph: parts.graph,
    user: env.OPSPILOT_ALERT_USER,
    logger,
  });
  jobs.register(incidentJob(incidentWorker, sweepMs.incidents));
  jobs.register(queueJob(runtime, sweepMs.queue));
  jobs.register(approvalExpiryJob(runtime, sweepMs["approval-expiry"]));
  jobs.register(takeoverJob({ runtime, handoffs: storage.handoffs, logger, everyMs: sweepMs.takeover }));
  if (parts.probes && parts.onDependencyProbes)
    jobs.register(
      dependencyProbeJob({
        probes: parts.probes,
        onResults: parts.onDependencyProbes,
        everyMs: parseDuration(env.OPSPILOT_DEPENDENCY_PROBE_INTERVAL) ?? DEPENDENCY_PROBE_MS,
      }),
    );
  const accessReviews = accessReviewsOf(parts.toolSources ?? []);
  if (accessReviews.length > 0)
    jobs.register(
      kubernetesAccessJob(
        accessReviews,
        parseDuration(env.OPSPILOT_KUBERNETES_ACCESS_INTERVAL ?? "") ?? KUBERNETES_ACCESS_MS,
      ),
    );
  if (parts.alertmanager) {
    const reconciler = createSilenceReconciler({
      storage,
      alertmanager: createToolsetClient("Alertmanager", parts.alertmanager),
      worker: incidentWorker,
      onResolved: parts.onIncidentResolved,
      logger,
    });
    const everyMs = parseDuration(env.OPSPILOT_INCIDENT_RECONCILE_INTERVAL ?? "") ?? INCIDENT_RECONCILE_MS;
    jobs.register(incidentReconcileJob(reconciler, everyMs));
  }
  if (env.OPSPILOT_RETENTION_DAYS !== undefined)
    jobs.register(retentionJob({ storage, retentionDays: env.OPSPILOT_RETENTION_DAYS }));
  const webhook = env.OPSPILOT_INCIDENT_WEBHOOK;
  const schedules = scheduleJobs({
    ...{ schedules: parts.schedules ?? [], defaultUser: env.OPSPILOT_ALERT_USER, runtime, threads: storage, logger },
    ...{
      webhook: webhook ? { url: webhook, format: env.OPSPILOT_INCIDENT_WEBHOOK_FORMAT } : undefined,
      publicUrl: publicUrlOf(env),
      findings: parts.findings?.(),
    },
  });
  for (const job of schedules.jobs) jobs.register(job);
  return { jobs, incidentWorker };
}
