import type { LogFold } from "../log-shaping/fold.js";
import { fieldOf, indexPath, searchQuery, type SearchTarget } from "./search-body.js";

/** Hits per page: half of the default `index.max_result_window`. */
export const SEARCH_PAGE_HITS = 5_000;

interface Hit {
  _source?: Record<string, unknown>;
  sort?: unknown[];
}

/** What a read asks the cluster. */
export interface HitRead {
  query?: string;
  filters?: Record<string, string | number | boolean>;
  index?: string;
  start: number;
  end: number;
  limit: number;
  signal: AbortSignal;
}

/**
 * Reads the matching documents newest first into `fold`, page by page with `search_after` on the
 * time field (then `_doc`), until `limit` lines or the last hit; returns how many documents match.
 */
export async function readHits(target: SearchTarget, read: HitRead, fold: LogFold): Promise<number> {
  let after: unknown[] | undefined;
  let matched = 0;
  for (let first = true; fold.lines < read.limit; first = false) {
    const size = Math.min(SEARCH_PAGE_HITS, read.limit - fold.lines);
    const body = (await target.client.request({
      method: "POST",
      path: indexPath(target, read.index, "_search"),
      body: {
        size,
        query: searchQuery(target, read, read),
        sort: [{ [target.timeField]: { order: "desc" } }, { _doc: { order: "desc" } }],
        _source: [target.timeField, target.messageField, target.levelField],
        ...(first ? { track_total_hits: true } : {}),
        ...(after ? { search_after: after } : {}),
      },
      signal: read.signal,
    })) as { hits?: { total?: { value?: number } | number; hits?: Hit[] } };
    const total = body.hits?.total;
    if (first) matched = typeof total === "number" ? total : (total?.value ?? 0);
    const hits = body.hits?.hits ?? [];
    for (const hit of hits) {
      const source = hit._source ?? {};
      const message = fieldOf(source, target.messageField);
      const level = fieldOf(source, target.levelField);
      fold.add({
        time: Date.parse(String(fieldOf(source, target.timeField) ?? "")) || 0,
        line: typeof message === "string" ? message : JSON.stringify(message ?? source),
        ...(typeof level === "string" ? { level } : {}),
      });
    }
    after = hits.at(-1)?.sort;
    if (hits.length < size || !after) break;
  }
  return matched;
}
