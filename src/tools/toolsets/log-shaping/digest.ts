import { LEVEL_ORDER, type LogLevel } from "./level.js";
import type { LogFold, LogGroup } from "./fold.js";

/** Bytes of a digest when the config sets no budget. */
export const DEFAULT_MAX_BYTES = 3_500;

/** One pattern as the model reads it. */
export interface PatternRow {
  level: LogLevel;
  /** Lines of this pattern (all of them, whether or not examples are shown). */
  count: number;
  firstSeen: string;
  lastSeen: string;
  pattern: string;
  /** A few of its lines, masked. */
  examples: string[];
}

/** What a log read returns: its lines folded into patterns, error levels first, within a byte budget. */
export interface LogDigest {
  /** The backend and, with several instances, which one. */
  source: string;
  query: string;
  start: string;
  end: string;
  /** Lines read and folded. */
  linesRead: number;
  /** Lines the query matches, when the backend counts them (Elasticsearch's total hits). */
  linesMatched?: number;
  /** Whether the line limit stopped the read: more lines may match. */
  limitReached: boolean;
  /** Lines per level, over every line read. */
  byLevel: Partial<Record<LogLevel, number>>;
  /** Distinct patterns found. */
  patternsFound: number;
  /** The patterns shown, error levels first, most frequent first within a level. */
  patterns: PatternRow[];
  /** Patterns and lines not shown: `patterns` counts plus `omittedLines` add up to `linesRead`. */
  omittedPatterns: number;
  omittedLines: number;
  /** What was cut and how to see it, when anything was. */
  cut?: string;
}

/** The read a digest describes. */
export interface DigestRequest {
  source: string;
  query: string;
  /** Milliseconds. */
  start: number;
  end: number;
  /** The line limit the read had. */
  lineLimit: number;
  /** The byte budget of the digest's JSON text. */
  maxBytes: number;
  /** Lines the query matches, when the backend says. */
  matched?: number;
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
const iso = (milliseconds: number) => new Date(milliseconds).toISOString();

function ordered(groups: LogGroup[]): LogGroup[] {
  return groups.sort(
    (left, right) => LEVEL_ORDER.indexOf(left.level) - LEVEL_ORDER.indexOf(right.level) || right.count - left.count,
  );
}

function row(group: LogGroup, examples: number): PatternRow {
  return {
    level: group.level,
    count: group.count,
    firstSeen: iso(group.first),
    lastSeen: iso(group.last),
    pattern: group.pattern,
    examples: group.examples.slice(0, examples),
  };
}

/**
 * The fold as a digest whose JSON text stays within `maxBytes`: every pattern that fits with one
 * example, in level order (fatal, error, warn, …) and by count, then more examples while they fit.
 * What does not fit is counted, and `cut` says so.
 */
export function digestOf(fold: LogFold, request: DigestRequest): LogDigest {
  const groups = ordered(fold.groups());
  const byLevel = Object.fromEntries(
    LEVEL_ORDER.filter((level) => fold.byLevel[level] !== undefined).map((level) => [level, fold.byLevel[level]]),
  );
  const limitReached = request.matched === undefined ? fold.lines >= request.lineLimit : request.matched > fold.lines;
  const digest: LogDigest = {
    source: request.source,
    query: request.query,
    start: iso(request.start),
    end: iso(request.end),
    linesRead: fold.lines,
    ...(request.matched === undefined ? {} : { linesMatched: request.matched }),
    limitReached,
    byLevel,
    patternsFound: groups.length + (fold.ungrouped > 0 ? 1 : 0),
    patterns: [],
    omittedPatterns: groups.length,
    omittedLines: fold.lines,
    cut: "",
  };
  // Room for the counts and the cut sentence, written last.
  let room = request.maxBytes - bytes(digest) - 400;
  const shown: Array<{ group: LogGroup; examples: number }> = [];
  for (const group of groups) {
    const cost = bytes(row(group, 1)) + 1;
    if (cost > room) continue;
    room -= cost;
    shown.push({ group, examples: 1 });
  }
  for (let more = 2; more <= 3; more += 1)
    for (const item of shown) {
      if (item.group.examples.length < more) continue;
      const cost = bytes(item.group.examples[more - 1]) + 1;
      if (cost > room) continue;
      room -= cost;
      item.examples = more;
    }
  digest.patterns = shown.map((item) => row(item.group, item.examples));
  settle(digest, request, fold.ungrouped);
  // The reserve covers the counts and the sentence; should a long query outgrow it, the last patterns go.
  while (bytes(digest) > request.maxBytes && digest.patterns.length > 0) {
    digest.patterns.pop();
    settle(digest, request, fold.ungrouped);
  }
  return digest;
}

/** Counts what the shown patterns leave out, and states the cut. */
function settle(digest: LogDigest, request: DigestRequest, ungrouped: number): void {
  digest.omittedPatterns = digest.patternsFound - digest.patterns.length;
  digest.omittedLines = digest.linesRead - digest.patterns.reduce((sum, pattern) => sum + pattern.count, 0);
  const cut = cutSentence(digest, request, ungrouped);
  if (cut) digest.cut = cut;
  else delete digest.cut;
}

function cutSentence(digest: LogDigest, request: DigestRequest, ungrouped: number): string | undefined {
  const parts: string[] = [];
  if (digest.limitReached)
    parts.push(
      request.matched === undefined
        ? `The read stopped at the line limit (${request.lineLimit}): more lines may match; narrow the query or the window`
        : `The read stopped at the line limit (${request.lineLimit}) of ${request.matched} matching lines; narrow the query or the window`,
    );
  if (digest.omittedPatterns > 0)
    parts.push(
      `${digest.omittedPatterns} pattern(s) with ${digest.omittedLines} line(s) did not fit in ${request.maxBytes} bytes and are counted only (in byLevel)` +
        (ungrouped > 0 ? `, ${ungrouped} of those lines beyond the first patterns` : ""),
    );
  return parts.length > 0 ? `${parts.join(". ")}.` : undefined;
}
