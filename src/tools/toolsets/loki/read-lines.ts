import { ToolError } from "../../../contracts/errors.js";
import type { ToolsetClient } from "../http-client.js";
import type { LogFold } from "../log-shaping/fold.js";
import { lokiData, nanoseconds } from "./api.js";

/** Lines Loki returns per request: its default `max_entries_limit_per_query`. */
export const LOKI_PAGE_LINES = 5_000;

interface Stream {
  stream?: Record<string, string>;
  values?: Array<[string, string]>;
}

/** What a read asks Loki. */
export interface LineRead {
  query: string;
  /** Milliseconds; `end` is exclusive, as Loki reads it. */
  start: number;
  end: number;
  /** Most lines to read. */
  limit: number;
  signal: AbortSignal;
}

/**
 * Reads a log query's lines newest first into `fold`, page by page as logcli does (each page ends
 * where the last one's oldest line was; lines at that instant already read are skipped), until
 * `limit` lines or the window's start. A metric query is refused: its place is loki_metric_query.
 */
export async function readLines(client: ToolsetClient, read: LineRead, fold: LogFold): Promise<void> {
  let end = BigInt(nanoseconds(read.end));
  const start = nanoseconds(read.start);
  let boundary = { nanos: -1n, keys: new Set<string>() };
  while (fold.lines < read.limit) {
    // The lines of the boundary instant come again: asked for on top of those still wanted.
    const want = Math.min(LOKI_PAGE_LINES, read.limit - fold.lines + boundary.keys.size);
    const data = (await lokiData(client, {
      path: "/loki/api/v1/query_range",
      query: { query: read.query, start, end: end.toString(), limit: String(want), direction: "backward" },
      signal: read.signal,
    })) as { resultType?: string; result?: Stream[] };
    if (data.resultType !== "streams")
      throw new ToolError(
        "invalid_args",
        `Loki: "${read.query}" is a metric query (it returns a ${data.resultType ?? "non-log"} result); use loki_metric_query for counts and rates, loki_query for lines.`,
      );
    const page = entriesOf(data.result ?? []);
    const oldest = page.at(-1)?.nanos;
    const fresh = page.filter((entry) => entry.nanos !== boundary.nanos || !boundary.keys.has(keyOf(entry)));
    for (const entry of fresh.slice(0, read.limit - fold.lines))
      fold.add({ time: Number(entry.nanos / 1_000_000n), line: entry.line, level: entry.level });
    if (page.length < want || oldest === undefined || fresh.length === 0) return;
    boundary = { nanos: oldest, keys: new Set(page.filter((entry) => entry.nanos === oldest).map(keyOf)) };
    // Loki's end is exclusive: one nanosecond past the oldest line reads the rest of its instant again.
    end = oldest + 1n;
  }
}

/** What tells two lines of one instant apart: their stream and their text. */
function keyOf(entry: { labels: Record<string, string>; line: string }): string {
  return `${JSON.stringify(entry.labels)}\u0000${entry.line}`;
}

/** A page's lines over all its streams, newest first. */
function entriesOf(streams: Stream[]) {
  const entries = streams.flatMap((stream) =>
    (stream.values ?? []).map(([nanos, line]) => ({
      nanos: BigInt(nanos),
      line,
      labels: stream.stream ?? {},
      level: stream.stream?.level ?? stream.stream?.detected_level ?? stream.stream?.severity,
    })),
  );
  return entries.sort((left, right) => (left.nanos === right.nanos ? 0 : left.nanos > right.nanos ? -1 : 1));
}
