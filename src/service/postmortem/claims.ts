import { DEFAULT_FACT_PATTERNS, factPattern, unobservedFacts, type UnobservedFact } from "../../contracts/facts.js";
import type { Evidence } from "./incident-records.js";

/**
 * What a postmortem checks beside the eval's ids and codes: names with a digit in them (pods,
 * hosts, `payment-7d9f`), which an incident's observations spell and a model could invent.
 */
export const POSTMORTEM_FACT_PATTERNS: Readonly<Record<string, string>> = {
  ...DEFAULT_FACT_PATTERNS,
  name: "\\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[a-z]*\\d[a-z0-9]*\\b",
};

/** A call id the text cites: `[call_abc]`, not a link's text. */
const CITATION = /\[([A-Za-z0-9_-]{4,})\](?!\()/gu;

/** Cited calls per line at most: the rest hold the same facts. */
const CITED_PER_LINE = 3;

/** A text checked against the records and the tool results it rests on. */
export interface CheckedText {
  /** The text, each line followed by links to the results that hold its facts, each unverified fact marked. */
  markdown: string;
  /** Facts no tool result and no record holds, in order of appearance. */
  unverified: UnobservedFact[];
  /** Call ids cited, in order. */
  cited: string[];
}

/** What a text is checked against. */
export interface ClaimSources {
  /** The incident's successful tool results. */
  evidence: readonly Evidence[];
  /** The records as text (the timeline): facts they hold are verified without a citation. */
  records: string;
  /** Every call id of the thread: a cited one (`[call_…]`) that is not one of them is unverified. */
  callIds: ReadonlySet<string>;
  /** Where the page opens a call's result. */
  link: (callId: string) => string;
}

/**
 * Links each line of `text` to the tool results that hold its numbers and names, and marks in
 * place (**9 (unverified)**) every number or name that neither a result nor a record holds.
 */
export function checkClaims(text: string, sources: ClaimSources): CheckedText {
  const unverified: UnobservedFact[] = [];
  const cited: string[] = [];
  const known = [...sources.evidence.map((item) => item.text), sources.records].join("\n");
  const lines = text.split("\n").map((line) => {
    if (line.trim() === "") return line;
    // Facts are read from the line without its citations; links are added after marking, so a URL is never read.
    const claim = line.replace(CITATION, "");
    let checked = line;
    for (const fact of unobservedFacts(claim, known, { patterns: POSTMORTEM_FACT_PATTERNS, numbers: true })) {
      checked = markFact(checked, fact);
      if (!unverified.some((seen) => seen.fact === fact.fact)) unverified.push(fact);
    }
    checked = citeExplicit(checked, sources, unverified, cited);
    const holders = supporting(claim, sources.evidence).filter((callId) => !checked.includes(`#call-${callId}`));
    for (const callId of holders) if (!cited.includes(callId)) cited.push(callId);
    const links = holders.map((callId) => `[\`${callId}\`](${sources.link(callId)})`);
    return links.length > 0 ? `${checked} (${links.join(", ")})` : checked;
  });
  return { markdown: lines.join("\n"), unverified, cited };
}

/** Turns each `[callId]` the text cites into a link; a cited id the thread never had is unverified. */
function citeExplicit(line: string, sources: ClaimSources, unverified: UnobservedFact[], cited: string[]): string {
  return line.replace(CITATION, (whole, callId: string) => {
    if (sources.callIds.has(callId)) {
      if (!cited.includes(callId)) cited.push(callId);
      return `[\`${callId}\`](${sources.link(callId)})`;
    }
    if (!/^call/iu.test(callId)) return whole;
    if (!unverified.some((seen) => seen.fact === callId)) unverified.push({ kind: "call id", fact: callId });
    return `**${callId} (unverified)**`;
  });
}

/** The results that hold at least one of the line's numbers or names, first ones first. */
function supporting(line: string, evidence: readonly Evidence[]): string[] {
  // Against no known text, every fact of the line is "unobserved": that lists them all.
  const facts = unobservedFacts(line, "", { patterns: POSTMORTEM_FACT_PATTERNS, numbers: true });
  if (facts.length === 0) return [];
  return evidence
    .filter((item) => {
      const absent = unobservedFacts(line, item.text, { patterns: POSTMORTEM_FACT_PATTERNS, numbers: true });
      return absent.length < facts.length;
    })
    .slice(0, CITED_PER_LINE)
    .map((item) => item.callId);
}

/** The line with every whole occurrence of the fact marked unverified. */
function markFact(line: string, fact: UnobservedFact): string {
  const pattern =
    fact.kind === "number"
      ? new RegExp(`(?<![\\w.*-])${fact.fact.replace(".", "\\.")}(?![\\w]|\\.\\d)`, "gu")
      : new RegExp(factPattern(fact.fact).source, "gu");
  return line.replace(pattern, (found) => `**${found} (unverified)**`);
}
