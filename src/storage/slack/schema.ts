/**
 * Where each incident's Slack message lives, the same in SQLite and PostgreSQL (BIGINT is
 * INTEGER to SQLite): one row per incident, claimed before the message is posted (`ts` NULL)
 * and holding Slack's `ts` once it is, so every later update becomes a reply in its thread.
 */
export const SLACK_THREADS_TABLE = `CREATE TABLE IF NOT EXISTS opspilot_slack_threads (
  incident_id TEXT PRIMARY KEY, channel TEXT NOT NULL, ts TEXT, claimed_at BIGINT NOT NULL);`;

/** Claims a row: inserts it, or takes over one whose poster never stored a `ts` and claimed it before the cut-off. */
export function claimSql(placeholders: { incident: string; channel: string; at: string; staleBefore: string }) {
  const { incident, channel, at, staleBefore } = placeholders;
  return `INSERT INTO opspilot_slack_threads AS t (incident_id, channel, ts, claimed_at) VALUES (${incident}, ${channel}, NULL, ${at})
  ON CONFLICT (incident_id) DO UPDATE SET channel = EXCLUDED.channel, claimed_at = EXCLUDED.claimed_at
  WHERE t.ts IS NULL AND t.claimed_at < ${staleBefore}`;
}
