import type { JobClaimStore } from "../../storage/jobs/types.js";
import type { Logger } from "../observability/logger.js";
import type { JobDefinition, JobRunReport } from "./job.js";

/** One claimed run and what it reports to. */
export interface ClaimedRun {
  job: JobDefinition;
  dueAt: number;
  claim: { claimId: string };
  leaseMs: number;
  claims: JobClaimStore;
  controller: AbortController;
  logger: Logger;
  onRun?: (report: JobRunReport) => void;
  now: () => number;
}

/**
 * Runs a job for the due time it claimed, renewing the claim every third of its lease (a renewal
 * refused means another process took the job over: the run is aborted). A run that ended is
 * finished, so no process runs that due time again; one the engine aborted on stop gives its
 * claim up, so another process may run it at once. Failures are logged and reported here, once.
 */
export async function runClaimed(run: ClaimedRun): Promise<void> {
  const { job, claims, controller, logger } = run;
  const { claimId } = run.claim;
  const renewal = setInterval(() => {
    claims.renew(job.name, claimId, run.leaseMs).then(
      (held) => held || controller.abort(new Error(`another process took background job ${job.name} over`)),
      (error: unknown) => logger.error(`could not renew the claim of background job ${job.name}`, error),
    );
  }, run.leaseMs / 3);
  const startedAt = run.now();
  let report: JobRunReport;
  try {
    await job.run(controller.signal, run.dueAt);
    report = { job: job.name, dueAt: run.dueAt, outcome: "ok", durationMs: run.now() - startedAt };
  } catch (error) {
    report = { job: job.name, dueAt: run.dueAt, outcome: "failed", durationMs: run.now() - startedAt, error };
    logger.error(`background job ${job.name} failed`, error);
  } finally {
    clearInterval(renewal);
  }
  if (controller.signal.aborted && report.outcome === "failed") await claims.release(job.name, claimId);
  else await claims.finish(job.name, claimId);
  try {
    run.onRun?.(report);
  } catch (error) {
    logger.error("a background job's observer failed", error);
  }
}
