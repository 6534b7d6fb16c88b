import { maskSensitive } from "../../masking/mask.js";
import { levelOf, type LogLevel } from "./level.js";
import { patternOf } from "./pattern.js";

/** One log line as a backend returned it. */
export interface LogEntry {
  /** Milliseconds since the epoch. */
  time: number;
  /** The line's text, unmasked. */
  line: string;
  /** The level its source gave (a label or field), when it gave one. */
  level?: string;
}

/** Lines that share a pattern and a level. */
export interface LogGroup {
  level: LogLevel;
  pattern: string;
  count: number;
  /** Milliseconds of the earliest and the latest line. */
  first: number;
  last: number;
  /** Distinct masked lines, newest kept first, at most EXAMPLES_KEPT. */
  examples: string[];
}

/** Examples kept per group while folding; the digest shows fewer when the budget is tight. */
export const EXAMPLES_KEPT = 3;
/** Characters of one example line. */
export const EXAMPLE_CHARS = 300;
/** Distinct groups kept; lines of further patterns are counted together, so memory stays bounded. */
export const MAX_GROUPS = 2_000;

/** Lines folded into groups as they are read: each is masked first, then shaped. */
export interface LogFold {
  /** Masks the line, finds its level and pattern and counts it. */
  add(entry: LogEntry): void;
  /** Lines added. */
  readonly lines: number;
  /** Lines whose pattern came after MAX_GROUPS others: counted, not grouped. */
  readonly ungrouped: number;
  /** Lines per level, grouped or not. */
  readonly byLevel: Partial<Record<LogLevel, number>>;
  /** The groups so far. */
  groups(): LogGroup[];
}

/** An empty fold. */
export function createLogFold(): LogFold {
  const groups = new Map<string, LogGroup>();
  let lines = 0;
  let ungrouped = 0;
  const byLevel: Partial<Record<LogLevel, number>> = {};
  return {
    add(entry) {
      lines += 1;
      // Masked whole, before anything else reads it: a cut or a pattern could turn a token into a shape no rule knows.
      const masked = maskSensitive(entry.line);
      const level = levelOf(masked, entry.level);
      byLevel[level] = (byLevel[level] ?? 0) + 1;
      const pattern = patternOf(masked);
      const key = `${level}\u0000${pattern}`;
      let group = groups.get(key);
      if (!group) {
        if (groups.size >= MAX_GROUPS) {
          ungrouped += 1;
          return;
        }
        group = { level, pattern, count: 0, first: entry.time, last: entry.time, examples: [] };
        groups.set(key, group);
      }
      group.count += 1;
      group.first = Math.min(group.first, entry.time);
      group.last = Math.max(group.last, entry.time);
      const example = masked.length <= EXAMPLE_CHARS ? masked : `${masked.slice(0, EXAMPLE_CHARS - 1)}…`;
      if (group.examples.length < EXAMPLES_KEPT && !group.examples.includes(example)) group.examples.push(example);
    },
    get lines() {
      return lines;
    },
    get ungrouped() {
      return ungrouped;
    },
    byLevel,
    groups: () => [...groups.values()],
  };
}
