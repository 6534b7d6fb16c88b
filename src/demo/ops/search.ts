import type { Database } from "better-sqlite3";
import { queryTokens, toMatchExpression } from "../../tools/text-search/text.js";
import {
  rankRunbooks as rankRunbookTable,
  toRankedRef,
  type RankedRef,
  type RankedRow,
} from "../../tools/text-search/rank.js";

export type { RankedRef } from "../../tools/text-search/rank.js";

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
  return rows.map(toRankedRef);
}

/** The demo dataset's runbook table, with the columns every runbook ranking weighs (`text-search/rank.ts`). */
export const RUNBOOKS_TABLE = "ops_runbooks_fts";

/** The demo's runbooks, ranked as every runbook search is (`rankRunbooks` of the text search). */
export function rankRunbooks(db: Database, query: string, options: { limit: number }): RankedRef[] {
  return rankRunbookTable(db, query, { ...options, table: RUNBOOKS_TABLE });
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
  return rows.map(toRankedRef).filter((hit) => hit.score > 0.1);
}

/** The FTS expression that filters log lines: every word of the query must appear; null when none is searchable. */
export function logMatchExpression(query: string): string | null {
  return toMatchExpression(queryTokens(query), "AND");
}
