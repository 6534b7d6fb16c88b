import type { Database } from "better-sqlite3";
import { queryTokens, toMatchExpression } from "../../tools/text-search/text.js";

/** A ranked search hit: the record id and its relevance (higher is better). */
export interface RankedRef {
  /** Id of the matched record. */
  ref: string;
  /** Kind of record (`service` or `environment` for resources). */
  kind: string;
  /** Relevance: bm25 negated, so higher is better. */
  score: number;
}

interface RankedRow {
  ref: string;
  kind: string;
  rank: number;
}

/** Rounds a bm25 rank to a stable positive score. */
function toScore(rank: number): number {
  return Math.round(-rank * 1000) / 1000;
}

/**
 * Resources: every query word must match (precise: "支付" finds the payment service, not
 * everything mentioning 服务); when nothing matches all words, any word may match.
 * Name columns weigh ten times the description.
 */
export function rankResources(db: Database, query: string, options: { kind?: string; limit: number }): RankedRef[] {
  const tokens = queryTokens(query);
  const statement = db.prepare(
    `SELECT ref, kind, bm25(ops_resources_fts, 0, 0, 10.0, 1.0) AS rank FROM ops_resources_fts
     WHERE ops_resources_fts MATCH ? AND (? IS NULL OR kind = ?) ORDER BY rank, ref LIMIT ?`,
  );
  const run = (expression: string) =>
    statement.all(expression, options.kind ?? null, options.kind ?? null, options.limit) as RankedRow[];
  const strict = toMatchExpression(tokens, "AND");
  if (strict === null) return [];
  let rows = run(strict);
  if (rows.length === 0 && tokens.length > 1) rows = run(toMatchExpression(tokens, "OR") as string);
  return rows.map((row) => ({ ref: row.ref, kind: row.kind, score: toScore(row.rank) }));
}

/** The runbook table of the demo dataset; other tables ranked by `rankRunbooks` share its columns. */
export const RUNBOOKS_TABLE = "ops_runbooks_fts";

/**
 * Runbooks: any query word may match and bm25 decides the order, so a long question still
 * finds the best document. Titles weigh 5, tags/codes/services 3, the body 1. `table` names
 * another FTS5 table with the same columns (`ref, title, keywords, body`), such as the index
 * of a runbooks folder, so every runbook search ranks alike.
 */
export function rankRunbooks(db: Database, query: string, options: { limit: number; table?: string }): RankedRef[] {
  const table = options.table ?? RUNBOOKS_TABLE;
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`Not a runbook table name: ${table}`);
  const expression = toMatchExpression(queryTokens(query), "OR");
  if (expression === null) return [];
  const rows = db
    .prepare(
      `SELECT ref, 'runbook' AS kind, bm25(${table}, 0, 5.0, 3.0, 1.0) AS rank FROM ${table}
       WHERE ${table} MATCH ? ORDER BY rank, ref LIMIT ?`,
    )
    .all(expression, options.limit) as RankedRow[];
  return rows.map((row) => ({ ref: row.ref, kind: row.kind, score: toScore(row.rank) }));
}

/**
 * Services whose names share a meaningful word with the query, for "did you mean" hints.
 * Words found in every name ("service", 服务) score about zero and are left out.
 */
export function rankServiceNames(db: Database, query: string, limit: number): RankedRef[] {
  const expression = toMatchExpression(queryTokens(query), "OR");
  if (expression === null) return [];
  const rows = db
    .prepare(
      `SELECT ref, kind, bm25(ops_resources_fts) AS rank FROM ops_resources_fts
       WHERE ops_resources_fts MATCH ? AND kind = 'service' ORDER BY rank, ref LIMIT ?`,
    )
    .all(`names : (${expression})`, limit) as RankedRow[];
  return rows
    .map((row) => ({ ref: row.ref, kind: row.kind, score: toScore(row.rank) }))
    .filter((hit) => hit.score > 0.1);
}

/** The FTS expression that filters log lines: every word of the query must appear; null when none is searchable. */
export function logMatchExpression(query: string): string | null {
  return toMatchExpression(queryTokens(query), "AND");
}
