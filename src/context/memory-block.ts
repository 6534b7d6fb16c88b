import { clip, type MemoryDigest, type MemoryEntry, type WorkingMemory } from "./memory.js";

/** What the thread's messages say about each turn, for the lines of working memory. */
export interface TurnTexts {
  /** The first words of each turn's user message, by turn. */
  asked: ReadonlyMap<number, string>;
  /** The first words of each turn's last answer, by turn. */
  answered: ReadonlyMap<number, string>;
  /** The turn of the run in progress: its entries are never merged. */
  currentTurn: number;
}

/** Which parts of memory a request shows: those whose messages it leaves out. */
export interface MemoryShown {
  /** Call ids whose messages the request carries. */
  callIds: ReadonlySet<string>;
  /** Turns from this one on are carried whole; a digest covering only such turns is left out. */
  wholeFrom: number;
}

/** Everything in memory shown, for measuring it. */
export const SHOW_ALL: MemoryShown = { callIds: new Set(), wholeFrom: Number.POSITIVE_INFINITY };

const HEADER =
  "Working memory: what earlier steps of this conversation found, kept here because their messages no longer fit " +
  "(oldest first). The full result of a listed call id can be paged with read_result.";

/** Facts a merged digest keeps, and the call ids it lists. */
const FACTS_PER_DIGEST = 8;
const CALL_IDS_PER_DIGEST = 4;

/** The memory block of a request's system message, or "" when there is nothing to show. */
export function renderMemory(memory: WorkingMemory, texts: TurnTexts, shown: MemoryShown): string {
  const lines: string[] = [];
  for (const digest of memory.digests) if (digest.fromTurn < shown.wholeFrom) lines.push(digestLine(digest));
  const entries = memory.entries.filter((entry) => !shown.callIds.has(entry.callId));
  for (const [turn, group] of byTurn(entries)) {
    lines.push(turnHeader(turn, texts));
    for (const entry of group) lines.push(`  - ${entryLine(entry)}`);
  }
  return lines.length === 0 ? "" : [HEADER, ...lines].join("\n");
}

/**
 * Memory merged until its block fits `maxTokens` (design §2.10): the oldest finished turn's
 * entries become one digest line, then the two oldest digests become one, keeping the facts
 * first seen; then the older half of the run in progress (never its latest step) becomes a
 * digest; as a last resort the oldest digest loses facts, then goes. Deterministic.
 */
export function compactMemory(
  memory: WorkingMemory,
  options: { maxTokens: number; count: (text: string) => number; texts: TurnTexts },
): WorkingMemory {
  const { maxTokens, count, texts } = options;
  let current = memory;
  while (count(renderMemory(current, texts, SHOW_ALL)) > maxTokens) {
    const next = mergeOnce(current, texts);
    if (next === undefined) break;
    current = next;
  }
  return current;
}

function mergeOnce(memory: WorkingMemory, texts: TurnTexts): WorkingMemory | undefined {
  const oldest = memory.entries.find((entry) => entry.turn < texts.currentTurn)?.turn;
  if (oldest !== undefined) {
    const folded = memory.entries.filter((entry) => entry.turn === oldest);
    return {
      entries: memory.entries.filter((entry) => entry.turn !== oldest),
      digests: [...memory.digests, turnDigest(oldest, folded, texts)],
    };
  }
  const [first, second, ...rest] = memory.digests;
  if (first && second) return { ...memory, digests: [mergeDigests(first, second), ...rest] };
  const running = memory.entries.filter((entry) => entry.turn === texts.currentTurn);
  const latestStep = Math.max(...running.map((entry) => entry.step));
  const older = running.filter((entry) => entry.step < latestStep);
  if (older.length >= 2) {
    const folded = new Set(older.slice(0, Math.ceil(older.length / 2)));
    return {
      entries: memory.entries.filter((entry) => !folded.has(entry)),
      digests: [...memory.digests, turnDigest(texts.currentTurn, [...folded], texts)],
    };
  }
  if (first && first.facts.length > 1)
    return { ...memory, digests: [{ ...first, facts: first.facts.slice(0, -1) }, ...rest] };
  if (first) return { ...memory, digests: rest };
  return undefined;
}

function turnDigest(turn: number, entries: readonly MemoryEntry[], texts: TurnTexts): MemoryDigest {
  const tools: Record<string, number> = {};
  for (const entry of entries) tools[entry.tool] = (tools[entry.tool] ?? 0) + 1;
  const succeeded = entries.filter((entry) => entry.outcome === "ok");
  const asked = texts.asked.get(turn);
  return {
    fromTurn: turn,
    toTurn: turn,
    asked: asked ? [asked] : [],
    tools,
    failed: entries.length - succeeded.length,
    facts: distinct(succeeded.flatMap((entry) => entry.facts)).slice(0, FACTS_PER_DIGEST),
    callIds: succeeded.map((entry) => entry.callId).slice(0, CALL_IDS_PER_DIGEST),
  };
}

function mergeDigests(older: MemoryDigest, newer: MemoryDigest): MemoryDigest {
  const tools = { ...older.tools };
  for (const [tool, calls] of Object.entries(newer.tools)) tools[tool] = (tools[tool] ?? 0) + calls;
  return {
    fromTurn: older.fromTurn,
    toTurn: newer.toTurn,
    asked: [...older.asked, ...newer.asked].slice(0, 2),
    tools,
    failed: older.failed + newer.failed,
    facts: distinct([...older.facts, ...newer.facts]).slice(0, FACTS_PER_DIGEST),
    callIds: [...older.callIds, ...newer.callIds].slice(0, CALL_IDS_PER_DIGEST),
  };
}

function digestLine(digest: MemoryDigest): string {
  const turns =
    digest.fromTurn === digest.toTurn ? `Turn ${digest.fromTurn}` : `Turns ${digest.fromTurn}–${digest.toTurn}`;
  const asked = digest.asked.length > 0 ? ` (asked: ${digest.asked.map((text) => `"${text}"`).join("; ")})` : "";
  const tools = Object.entries(digest.tools).map(([tool, calls]) => (calls > 1 ? `${tool} ×${calls}` : tool));
  const failed = digest.failed > 0 ? `, ${digest.failed} failed` : "";
  const facts = digest.facts.length > 0 ? ` Facts: ${digest.facts.join("; ")}.` : "";
  const ids = digest.callIds.length > 0 ? ` Call ids: ${digest.callIds.join(", ")}.` : "";
  return `- ${turns}${asked}: ${tools.join(", ") || "no tools"}${failed}.${facts}${ids}`;
}

function turnHeader(turn: number, texts: TurnTexts): string {
  if (turn === texts.currentTurn) return "- This turn, earlier steps:";
  const asked = texts.asked.get(turn);
  const answered = texts.answered.get(turn);
  const parts = [asked ? `asked: "${asked}"` : "", answered ? `answered: "${answered}"` : ""].filter(Boolean);
  return `- Turn ${turn}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}:`;
}

function entryLine(entry: MemoryEntry): string {
  const args = entry.args ? ` ${entry.args}` : "";
  const facts = entry.facts.length > 0 ? `: ${entry.facts.join("; ")}` : "";
  return `step ${entry.step} ${entry.tool}${args} → ${entry.outcome}${facts} [${entry.callId}]`;
}

function byTurn(entries: readonly MemoryEntry[]): Map<number, MemoryEntry[]> {
  const groups = new Map<number, MemoryEntry[]>();
  for (const entry of entries) groups.set(entry.turn, [...(groups.get(entry.turn) ?? []), entry]);
  return new Map([...groups].sort(([left], [right]) => left - right));
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** The first words of a message for memory lines. */
export function excerpt(text: string, max = 80): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}
