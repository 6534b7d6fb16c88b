import type { ErrorCode } from "../contracts/observation.js";
import { maskSensitive, maskValue } from "../execution/sanitize.js";
import type { ToolDefinition } from "../tools/types.js";
import { clip, codesIn } from "../tools/facts.js";

export { clip } from "../tools/facts.js";

/** One finished tool call as working memory keeps it (design §2.10). */
export interface MemoryEntry {
  /** Which user message of the thread the call served (1 is the first). */
  turn: number;
  /** Model turn of the run that proposed it. */
  step: number;
  /** The call's id: `read_result` pages its stored result. */
  callId: string;
  /** Tool name. */
  tool: string;
  /** The arguments that say what was asked, compact: `service=payment-service environment=prod`. */
  args: string;
  /** `ok`, or the error code. */
  outcome: "ok" | ErrorCode;
  /** Key facts from the tool's `summarize` (or the default); the error message for a failure. */
  facts: string[];
}

/** Older entries merged into one line: one turn, or a range of turns. */
export interface MemoryDigest {
  /** First turn covered. */
  fromTurn: number;
  /** Last turn covered. */
  toTurn: number;
  /** What the user asked in those turns (the first words), oldest first. */
  asked: string[];
  /** Calls per tool. */
  tools: Record<string, number>;
  /** Calls that failed. */
  failed: number;
  /** Key facts, first seen first. */
  facts: string[];
  /** Call ids whose stored results can still be paged. */
  callIds: string[];
}

/** The `memory` channel: compact step summaries that outlive the messages a request can carry. */
export interface WorkingMemory {
  /** Finished calls not merged yet, oldest first. */
  entries: MemoryEntry[];
  /** Merged older entries, oldest first. */
  digests: MemoryDigest[];
}

/** What a node writes to `memory`: entries to add, or the whole memory after merging. */
export type MemoryUpdate = { add: MemoryEntry[] } | { replace: WorkingMemory };

/** Facts kept per call, and characters per fact. */
export const FACTS_PER_CALL = 6;
const FACT_CHARS = 140;
const ARGS_CHARS = 120;

/** Memory of a thread that has none yet. */
export function emptyMemory(): WorkingMemory {
  return { entries: [], digests: [] };
}

/** The `memory` reducer: an entry for a call already remembered replaces it (a node that ran twice adds nothing). */
export function applyMemoryUpdate(current: WorkingMemory, update: MemoryUpdate): WorkingMemory {
  if ("replace" in update) return update.replace;
  if (update.add.length === 0) return current;
  const added = new Set(update.add.map((entry) => entry.callId));
  return { ...current, entries: [...current.entries.filter((entry) => !added.has(entry.callId)), ...update.add] };
}

/**
 * The memory entry of one finished call; `result` is the tool's return value, masked, and
 * `json` its `JSON.stringify` when the caller has written it already.
 */
export function memoryEntry(options: {
  turn: number;
  step: number;
  callId: string;
  tool: ToolDefinition | undefined;
  toolName: string;
  args: Record<string, unknown>;
  outcome: { ok: true; result: unknown; json?: string } | { ok: false; errorCode: ErrorCode; message: string };
}): MemoryEntry {
  const { outcome } = options;
  return {
    turn: options.turn,
    step: options.step,
    callId: options.callId,
    tool: options.toolName,
    args: keyArgs(options.args),
    outcome: outcome.ok ? "ok" : outcome.errorCode,
    facts: outcome.ok ? factsOf(options.tool, outcome.result, outcome.json) : cleanFacts([outcome.message]).slice(0, 1),
  };
}

/**
 * The tool's own facts, or the default's when it has no `summarize` or its `summarize` fails;
 * `json` is the result's `JSON.stringify`, when the caller has it.
 */
export function factsOf(tool: ToolDefinition | undefined, result: unknown, json?: string): string[] {
  if (tool?.summarize) {
    try {
      const facts = cleanFacts(tool.summarize(result));
      if (facts.length > 0) return facts;
    } catch {
      // A summarizer that throws must not cost the call its memory: the default takes over.
    }
  }
  return cleanFacts(defaultFacts(result, json));
}

/**
 * Facts of a result from a tool without `summarize` (MCP tools): how many items, the short
 * scalar fields, and the code-like ids anywhere in it. `json` is the result's `JSON.stringify`,
 * when the caller has it.
 */
export function defaultFacts(result: unknown, json?: string): string[] {
  const facts: string[] = [];
  if (typeof result === "string") facts.push(result.split("\n", 1)[0]!);
  else if (Array.isArray(result)) facts.push(`${result.length} item(s)${namesOf(result)}`);
  else if (result && typeof result === "object") {
    for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
      if (facts.length >= 4) break;
      if (Array.isArray(value)) facts.push(`${key}: ${value.length} item(s)${namesOf(value)}`);
      else if (typeof value === "number" || typeof value === "boolean") facts.push(`${key}: ${String(value)}`);
      else if (typeof value === "string" && value.length <= 80) facts.push(`${key}: ${value}`);
    }
  } else facts.push(String(result));
  const codes = codesIn(typeof result === "string" ? result : (json ?? JSON.stringify(result) ?? ""));
  if (codes.length > 0) facts.push(`codes: ${codes.join(", ")}`);
  return facts;
}

/** ` (a, b, c)`: the ids or names of a list's first items, when they have one. */
function namesOf(items: readonly unknown[]): string {
  const names = items
    .slice(0, 3)
    .map((item) => {
      if (typeof item !== "object" || item === null) return typeof item === "string" ? item.slice(0, 40) : "";
      const record = item as Record<string, unknown>;
      const name = record.id ?? record.name ?? record.title ?? record.code;
      return typeof name === "string" || typeof name === "number" ? String(name) : "";
    })
    .filter(Boolean);
  return names.length > 0 ? ` (${names.join(", ")}${items.length > names.length ? ", …" : ""})` : "";
}

/** `k=v` for each scalar argument, masked and short. */
export function keyArgs(args: Record<string, unknown>): string {
  const masked = maskValue(args) as Record<string, unknown>;
  const parts = Object.entries(masked)
    .filter(([, value]) => value !== undefined && value !== null && typeof value !== "object")
    .map(([key, value]) => `${key}=${clip(String(value), 40)}`);
  return clip(parts.join(" "), ARGS_CHARS);
}

/** Facts as kept: strings, one line each, masked, short, distinct, at most `FACTS_PER_CALL`. */
function cleanFacts(facts: unknown): string[] {
  if (!Array.isArray(facts)) return [];
  const kept = facts
    .filter((fact): fact is string => typeof fact === "string")
    .map((fact) => clip(maskSensitive(fact.replace(/\s+/g, " ").trim()), FACT_CHARS))
    .filter((fact) => fact.length > 0);
  return [...new Set(kept)].slice(0, FACTS_PER_CALL);
}
