import { randomUUID } from "node:crypto";
import { LEASE_OWNER, ownerMayBeAlive } from "../lease-owner.js";
import type { StatementCache } from "../sqlite/statement-cache.js";
import { CLAIM_COLUMNS, takeoverCondition } from "./claim-sql.js";
import { refusal, type ClaimRow, type JobClaim, type JobClaimStore } from "./types.js";

const CLAIM_SQL = `INSERT INTO opspilot_job_claims AS c (${CLAIM_COLUMNS}) VALUES (@job, @dueAt, @claimId, @owner, @until, 0)
  ON CONFLICT (job) DO UPDATE SET due_at = EXCLUDED.due_at, claim_id = EXCLUDED.claim_id, owner = EXCLUDED.owner,
    lease_until = EXCLUDED.lease_until, finished = 0
  WHERE ${takeoverCondition("@now", "@dead")}
  RETURNING claim_id`;

/** Job claims in the SQLite file of `SqliteStorage` (every process on that file shares them). */
export function sqliteJobClaims(statements: StatementCache, now: () => number = Date.now): JobClaimStore {
  function tryClaim(job: string, dueAt: number, leaseMs: number, dead: string): string | undefined {
    const claimId = randomUUID();
    const at = now();
    const row = statements
      .get(CLAIM_SQL)
      .get({ job, dueAt, claimId, owner: LEASE_OWNER, until: at + leaseMs, now: at, dead });
    return (row as { claim_id?: string } | undefined)?.claim_id;
  }

  function readRow(job: string): ClaimRow | undefined {
    const row = statements
      .get("SELECT due_at, claim_id, owner, finished, lease_until FROM opspilot_job_claims WHERE job = ?")
      .get(job) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return {
      dueAt: Number(row.due_at),
      claimId: row.claim_id as string,
      owner: row.owner as string,
      finished: row.finished === 1,
      leftMs: Number(row.lease_until) - now(),
    };
  }

  return {
    async claim({ job, dueAt, leaseMs }): Promise<JobClaim> {
      let dead = "";
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const claimId = tryClaim(job, dueAt, leaseMs, dead);
        if (claimId) return { kind: "claimed", claimId };
        const refused = refusal(readRow(job), ownerMayBeAlive);
        if (refused.kind !== "dead") return refused;
        dead = refused.claimId;
      }
      return { kind: "held", retryInMs: leaseMs };
    },
    async renew(job, claimId, leaseMs) {
      const { changes } = statements
        .get("UPDATE opspilot_job_claims SET lease_until = ? WHERE job = ? AND claim_id = ? AND finished = 0")
        .run(now() + leaseMs, job, claimId);
      return changes === 1;
    },
    async finish(job, claimId) {
      statements.get("UPDATE opspilot_job_claims SET finished = 1 WHERE job = ? AND claim_id = ?").run(job, claimId);
    },
    async release(job, claimId) {
      statements
        .get("UPDATE opspilot_job_claims SET lease_until = 0 WHERE job = ? AND claim_id = ? AND finished = 0")
        .run(job, claimId);
    },
    async lastDue(job) {
      const row = statements.get("SELECT due_at FROM opspilot_job_claims WHERE job = ?").get(job) as
        { due_at: number | bigint } | undefined;
      return row ? Number(row.due_at) : undefined;
    },
  };
}
