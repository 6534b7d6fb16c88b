import { clip } from "../../facts.js";
import type { LogDigest } from "./digest.js";

/** A digest's key facts for working memory: the counts, and the first patterns with theirs. */
export function digestFacts(digest: LogDigest): string[] {
  const levels = Object.entries(digest.byLevel)
    .map(([level, count]) => `${level} ${count}`)
    .join(", ");
  return [
    `${digest.source} ${digest.query} from ${digest.start} to ${digest.end}: ${digest.linesRead} line(s) (${levels}), ${digest.patternsFound} pattern(s)`,
    ...digest.patterns
      .slice(0, 3)
      .map((pattern) => `${pattern.level} ×${pattern.count} since ${pattern.firstSeen}: ${clip(pattern.pattern, 120)}`),
  ];
}
