/** What asking for a job's due time came to. */
export type JobClaim =
  /** This process runs it: `claimId` fences its renewals and its finish against a process that took over. */
  | { kind: "claimed"; claimId: string }
  /** Another live process holds the job (this due time or an earlier one): ask again in `retryInMs`. */
  | { kind: "held"; retryInMs: number }
  /** That due time (or a later one) ran already: nothing to do. */
  | { kind: "done" };

/**
 * One row per job: the last due time claimed, by whom (`owner`, host:pid, for the liveness
 * check) under which claim id (the fencing token), until when, and whether its run finished.
 * Shared by every process on one database, so a due time runs in exactly one of them.
 */
export interface JobClaimStore {
  /**
   * Claims `dueAt` of `job` for `leaseMs`: granted when no claim of that due time or a later one
   * finished, and no other live holder's lease runs (a holder whose lease expired, or whose
   * process on this host is gone, is taken over).
   */
  claim(request: { job: string; dueAt: number; leaseMs: number }): Promise<JobClaim>;
  /** Extends a claim this process still holds; false once another process took the job over. */
  renew(job: string, claimId: string, leaseMs: number): Promise<boolean>;
  /** Marks the claimed run finished (a no-op once another process took it over). */
  finish(job: string, claimId: string): Promise<void>;
  /** Gives an unfinished claim up, so another process may run that due time at once. */
  release(job: string, claimId: string): Promise<void>;
  /** The last due time of `job` any process claimed (epoch ms), or undefined when none ever did. */
  lastDue(job: string): Promise<number | undefined>;
}

/** The claim row as both databases read it back after a refused claim. */
export interface ClaimRow {
  dueAt: number;
  claimId: string;
  owner: string;
  finished: boolean;
  /** Milliseconds left on the lease by the database's clock (negative once expired). */
  leftMs: number;
}

/**
 * What a refused claim means, from the row that refused it: a live holder makes it `held`; a
 * holder whose process is gone is `dead` (claim again, fenced on its id); otherwise the due time
 * ran.
 */
export function refusal(
  row: ClaimRow | undefined,
  alive: (owner: string) => boolean,
): { kind: "held"; retryInMs: number } | { kind: "dead"; claimId: string } | { kind: "done" } {
  if (!row || row.finished || row.leftMs < 0) return { kind: "done" };
  if (!alive(row.owner)) return { kind: "dead", claimId: row.claimId };
  return { kind: "held", retryInMs: row.leftMs + 1 };
}
