/** The incident log and postmortem tables in SQLite (the log's rowid orders entries of one time). */
export const SQLITE_INCIDENT_LOG_TABLES = `CREATE TABLE IF NOT EXISTS opspilot_incident_log (
  incident_id TEXT NOT NULL, at INTEGER NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS opspilot_incident_log_incident ON opspilot_incident_log (incident_id, at);
CREATE TABLE IF NOT EXISTS opspilot_postmortems (
  incident_id TEXT PRIMARY KEY, markdown TEXT NOT NULL, written_at INTEGER NOT NULL, written_by TEXT NOT NULL);`;

/** The same tables in PostgreSQL, with `seq` standing in for SQLite's rowid order. */
export const POSTGRES_INCIDENT_LOG_TABLES = `CREATE TABLE IF NOT EXISTS opspilot_incident_log (
  seq BIGSERIAL PRIMARY KEY, incident_id TEXT NOT NULL, at BIGINT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS opspilot_incident_log_incident ON opspilot_incident_log (incident_id, at);
CREATE TABLE IF NOT EXISTS opspilot_postmortems (
  incident_id TEXT PRIMARY KEY, markdown TEXT NOT NULL, written_at BIGINT NOT NULL, written_by TEXT NOT NULL);`;
