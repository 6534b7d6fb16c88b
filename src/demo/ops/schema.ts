import type { Database } from "better-sqlite3";
import { DATASET, DATASET_VERSION, ERROR_CODE_MEANINGS, SERVICES, type RunbookRecord } from "./data/index.js";
import { initialStates } from "./ledger.js";
import { toIndexText } from "../../tools/text-search/text.js";

// Search columns hold pre-segmented text (see ops-text.ts); porter stems the English words.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS ops_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ops_logs (
  id INTEGER PRIMARY KEY, service TEXT NOT NULL, environment TEXT NOT NULL, level TEXT NOT NULL,
  code TEXT, message TEXT NOT NULL, seconds_ago INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ops_logs_by_service ON ops_logs (service, environment, seconds_ago);
CREATE VIRTUAL TABLE IF NOT EXISTS ops_logs_fts USING fts5 (body, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS ops_resources_fts USING fts5 (
  ref UNINDEXED, kind UNINDEXED, names, body, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS ops_runbooks_fts USING fts5 (
  ref UNINDEXED, title, keywords, body, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS ops_service_state (
  service TEXT NOT NULL, environment TEXT NOT NULL, status TEXT NOT NULL, version TEXT NOT NULL,
  previous_version TEXT, restart_count INTEGER NOT NULL DEFAULT 0, last_restart_at TEXT,
  updated_at TEXT NOT NULL, PRIMARY KEY (service, environment));
CREATE TABLE IF NOT EXISTS ops_actions (
  id INTEGER PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, action TEXT NOT NULL,
  service TEXT NOT NULL, environment TEXT NOT NULL, detail TEXT NOT NULL, created_at TEXT NOT NULL);
`;

/** Bump when the way text is segmented or indexed changes, so stored indexes are rebuilt. */
const INDEX_FORMAT = "fts5-bigram-2";

/** Chinese words for each level, so "报错" or "警告" in a log query finds the lines of that level. */
const LEVEL_WORDS: Readonly<Record<string, string>> = {
  ERROR: "error 报错 错误",
  WARN: "warning 警告",
  INFO: "info 信息",
};

const STATIC_TABLES = ["ops_logs", "ops_logs_fts", "ops_resources_fts", "ops_runbooks_fts"] as const;

/** Names of a service by id, so runbooks are also found by the names of the services they cover. */
function serviceNames(ids: readonly string[]): string[] {
  return SERVICES.filter((service) => ids.includes(service.id)).flatMap((service) => [service.name, service.nameZh]);
}

/**
 * The `title`, `keywords` and `body` columns of a demo runbook's search row; shared with the
 * runbooks-folder index, which ranks the demo runbooks beside the folder's.
 */
export function runbookIndexColumns(doc: RunbookRecord): [title: string, keywords: string, body: string] {
  return [
    toIndexText(doc.id, doc.title, doc.titleZh),
    toIndexText(doc.tags, doc.errorCodes, doc.services, serviceNames(doc.services)),
    toIndexText(
      doc.summary,
      doc.summaryZh,
      doc.advice.map((step) => `${step.en} ${step.zh}`),
    ),
  ];
}

/** Fills the search tables from the embedded dataset. */
function loadStatic(db: Database): void {
  const resource = db.prepare("INSERT INTO ops_resources_fts (ref, kind, names, body) VALUES (?, ?, ?, ?)");
  for (const service of DATASET.services) {
    resource.run(
      service.id,
      "service",
      toIndexText(service.id, service.name, service.nameZh, service.aliases),
      toIndexText(service.description, service.descriptionZh, service.owner, `tier ${service.tier}`),
    );
  }
  for (const environment of DATASET.environments) {
    resource.run(
      environment.id,
      "environment",
      toIndexText(environment.id, environment.name, environment.nameZh, environment.aliases),
      toIndexText(environment.description, environment.owner),
    );
  }
  const runbook = db.prepare("INSERT INTO ops_runbooks_fts (ref, title, keywords, body) VALUES (?, ?, ?, ?)");
  for (const doc of DATASET.runbooks) runbook.run(doc.id, ...runbookIndexColumns(doc));
  const log = db.prepare(
    "INSERT INTO ops_logs (id, service, environment, level, code, message, seconds_ago) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const logText = db.prepare("INSERT INTO ops_logs_fts (rowid, body) VALUES (?, ?)");
  DATASET.logs.forEach((line, index) => {
    log.run(index + 1, line.service, line.environment, line.level, line.code, line.message, line.secondsAgo);
    const meaning = line.code ? ERROR_CODE_MEANINGS[line.code] : undefined;
    logText.run(
      index + 1,
      toIndexText(line.code ?? "", LEVEL_WORDS[line.level], line.message, meaning ? [meaning.en, meaning.zh] : []),
    );
  });
}

/** Seeds the mutable per-environment state; existing rows (earlier restarts, rollbacks) are kept. */
function seedState(db: Database, now: string): void {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO ops_service_state (service, environment, status, version, previous_version, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  for (const row of initialStates(now)) {
    insert.run(row.service, row.environment, row.status, row.version, row.previous_version, row.updated_at);
  }
}

/**
 * Creates the `ops_` tables when missing and loads the static dataset once per database and
 * dataset version. Runs under the write lock, so two processes opening one file load it once.
 */
export function prepareOpsSchema(db: Database, now: Date): void {
  db.exec(SCHEMA);
  db.transaction(() => {
    const row = db.prepare("SELECT value FROM ops_meta WHERE key = 'dataset_version'").get() as
      { value: string } | undefined;
    const version = `${DATASET_VERSION}/${INDEX_FORMAT}`;
    if (row?.value === version) return;
    for (const table of STATIC_TABLES) db.exec(`DELETE FROM ${table}`);
    loadStatic(db);
    seedState(db, now.toISOString());
    db.prepare("INSERT OR REPLACE INTO ops_meta (key, value) VALUES ('dataset_version', ?)").run(version);
  }).immediate();
}
