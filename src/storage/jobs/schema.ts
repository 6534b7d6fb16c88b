/**
 * The job claims table, the same in SQLite and PostgreSQL (BIGINT is INTEGER to SQLite): one
 * row per job, the last due time claimed and its holder (see `types.ts`).
 */
export const JOB_CLAIMS_TABLE = `CREATE TABLE IF NOT EXISTS opspilot_job_claims (
  job TEXT PRIMARY KEY, due_at BIGINT NOT NULL, claim_id TEXT NOT NULL, owner TEXT NOT NULL,
  lease_until BIGINT NOT NULL, finished SMALLINT NOT NULL DEFAULT 0);`;
