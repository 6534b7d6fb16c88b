import { randomUUID } from "node:crypto";
import type pg from "pg";
import { LEASE_OWNER, ownerMayBeAlive } from "../lease-owner.js";
import { CLAIM_COLUMNS, takeoverCondition } from "./claim-sql.js";
import { refusal, type JobClaim, type JobClaimStore } from "./types.js";

/** The database's clock in ms: every process judges a lease by the same clock. */
const NOW_MS = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint";

const CLAIM_SQL = `INSERT INTO opspilot_job_claims AS c (${CLAIM_COLUMNS}) VALUES ($1, $2, $3, $4, ${NOW_MS} + $5, 0)
  ON CONFLICT (job) DO UPDATE SET due_at = EXCLUDED.due_at, claim_id = EXCLUDED.claim_id, owner = EXCLUDED.owner,
    lease_until = EXCLUDED.lease_until, finished = 0
  WHERE ${takeoverCondition(NOW_MS, "$6")}
  RETURNING claim_id`;

/** Job claims on the pool of `PostgresStorage`: the row lock of the upsert lets one process of many win a due time. */
export function postgresJobClaims(pool: pg.Pool): JobClaimStore {
  async function readRow(job: string) {
    const { rows } = await pool.query<Record<string, unknown>>(
      `SELECT due_at, claim_id, owner, finished, lease_until - ${NOW_MS} AS left_ms FROM opspilot_job_claims WHERE job = $1`,
      [job],
    );
    const [row] = rows;
    if (!row) return undefined;
    // BIGINT comes back as text.
    return {
      dueAt: Number(row.due_at),
      claimId: row.claim_id as string,
      owner: row.owner as string,
      finished: Number(row.finished) === 1,
      leftMs: Number(row.left_ms),
    };
  }

  return {
    async claim({ job, dueAt, leaseMs }): Promise<JobClaim> {
      let dead = "";
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const claimId = randomUUID();
        const { rows } = await pool.query(CLAIM_SQL, [job, dueAt, claimId, LEASE_OWNER, Math.ceil(leaseMs), dead]);
        if (rows.length === 1) return { kind: "claimed", claimId };
        const refused = refusal(await readRow(job), ownerMayBeAlive);
        if (refused.kind !== "dead") return refused;
        dead = refused.claimId;
      }
      return { kind: "held", retryInMs: leaseMs };
    },
    async renew(job, claimId, leaseMs) {
      const { rowCount } = await pool.query(
        `UPDATE opspilot_job_claims SET lease_until = ${NOW_MS} + $3 WHERE job = $1 AND claim_id = $2 AND finished = 0`,
        [job, claimId, Math.ceil(leaseMs)],
      );
      return rowCount === 1;
    },
    async finish(job, claimId) {
      await pool.query("UPDATE opspilot_job_claims SET finished = 1 WHERE job = $1 AND claim_id = $2", [job, claimId]);
    },
    async release(job, claimId) {
      await pool.query(
        "UPDATE opspilot_job_claims SET lease_until = 0 WHERE job = $1 AND claim_id = $2 AND finished = 0",
        [job, claimId],
      );
    },
    async lastDue(job) {
      const { rows } = await pool.query<{ due_at: string }>("SELECT due_at FROM opspilot_job_claims WHERE job = $1", [
        job,
      ]);
      // BIGINT comes back as text.
      return rows[0] ? Number(rows[0].due_at) : undefined;
    },
  };
}
