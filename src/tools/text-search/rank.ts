import type { Database } from "better-sqlite3";
import { queryTokens, toMatchExpression } from "./text.js";

/** A ranked search hit: the record id and its relevance (higher is better). */
export interface RankedRef {
  /** Id of the matched record. */
  ref: string;
  /** Kind of record (`service` or `environment` for resources, `runbook` for documents). */
  kind: string;
  /** Relevance: bm25 negated, so higher is better. */
  score: number;
}

/** A row as the ranking queries select it. */
export interface RankedRow {
  ref: string;
  kind: string;
  rank: number;
}

/** Rounds a bm25 rank to a stable positive score. */
export function toScore(rank: number): number {
  return Math.round(-rank * 1000) / 1000;
}

/** A ranked row as a hit. */
export function toRankedRef(row: RankedRow): RankedRef {
  return { ref: row.ref, kind: row.kind, score: toScore(row.rank) };
}

/**
 * Runbooks: any query word may match and bm25 decides the order, so a long question still
 * finds the best document. Titles weigh 5, tags/codes/services 3, the body 1. `table` names an
 * FTS5 table with the columns `ref, title, keywords, body` holding `toIndexText` content (a
 * runbooks folder's index, the demo's runbooks), so every runbook search ranks alike.
 */
export function rankRunbooks(db: Database, query: string, options: { limit: number; table: string }): RankedRef[] {
  const { table } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`Not a runbook table name: ${table}`);
  const expression = toMatchExpression(queryTokens(query), "OR");
  if (expression === null) return [];
  const rows = db
    .prepare(
      `SELECT ref, 'runbook' AS kind, bm25(${table}, 0, 5.0, 3.0, 1.0) AS rank FROM ${table}
       WHERE ${table} MATCH ? ORDER BY rank, ref LIMIT ?`,
    )
    .all(expression, options.limit) as RankedRow[];
  return rows.map(toRankedRef);
}
