/** The claims table's columns, in the order both databases insert them. */
export const CLAIM_COLUMNS = "job, due_at, claim_id, owner, lease_until, finished";

/**
 * When an existing row gives way to a new claim (`c` is the row, `EXCLUDED` the claim, `:now`
 * the database's clock in ms, `:dead` the claim id of a holder found dead): a later due time once
 * the row's run finished or its holder is gone, or the same due time again when its run was cut.
 */
export function takeoverCondition(now: string, dead: string): string {
  const free = `(c.lease_until < ${now} OR c.claim_id = ${dead})`;
  return `(c.due_at < EXCLUDED.due_at AND (c.finished = 1 OR ${free})) OR (c.due_at = EXCLUDED.due_at AND c.finished = 0 AND ${free})`;
}
