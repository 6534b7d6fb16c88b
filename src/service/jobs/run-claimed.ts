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
  let report: JobRunReport;
  try {
    report = await runOnce(run);
  } finally {
    clearInterval(renewal);
  }
  if (controller.signal.aborted && report.outcome === "failed") await claims.release(job.name, claimId);
  else await claims.finish(job.name, claimId);
  tell(run, report);
}

/** One run of a `perProcess` job: no claim is asked for or kept; failures are logged and reported as a claimed run's are. */
export async function runHere(run: Omit<ClaimedRun, "claim" | "leaseMs" | "claims">): Promise<void> {
  tell(run, await runOnce(run));
}

async function runOnce(run: Omit<ClaimedRun, "claim" | "leaseMs" | "claims">): Promise<JobRunReport> {
  const { job } = run;
  const startedAt = run.now();
  try {
    await job.run(run.controller.signal, run.dueAt);
    return { job: job.name, dueAt: run.dueAt, outcome: "ok", durationMs: run.now() - startedAt };
  } catch (error) {
    run.logger.error(`background job ${job.name} failed`, error);
    return { job: job.name, dueAt: run.dueAt, outcome: "failed", durationMs: run.now() - startedAt, error };
  }
}

function tell(run: Pick<ClaimedRun, "onRun" | "logger">, report: JobRunReport): void {
  try {
    run.onRun?.(report);
  } catch (error) {
    run.logger.error("a background job's observer failed", error);
  }
}
