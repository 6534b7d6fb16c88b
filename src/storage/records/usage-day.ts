/** The UTC day of an epoch-ms time as `YYYY-MM-DD`: the key daily usage is counted under. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Epoch ms of the UTC midnight that ends the day of `ms`, when daily quotas reset. */
export function nextUtcMidnight(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
}
