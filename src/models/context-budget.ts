import type { Encoding } from "./token-count.js";

/** How many tokens a model request may carry, and how they are counted (design §2.10). */
export interface ContextBudget {
  /** Tokens the model's window holds, prompt and reply together. */
  windowTokens: number;
  /** Tokens kept free for the reply. */
  reserveOutputTokens: number;
  /** Counted tokens are multiplied by this (1 or more): the encoding only approximates the model's own tokenizer. */
  margin: number;
  /** The bundled encoding tokens are counted with. */
  encoding: Encoding;
  /** The model family the defaults came from: gpt-4o, gpt-4.1, gpt-3.5, qwen, claude, demo or unknown. */
  family: string;
  /** Prompt tokens a request aims to stay under: older turns fold into working memory above it; absent, the prompt limit. */
  targetTokens?: number;
}

/** What the budget is derived from. */
export interface ContextBudgetSource {
  /** `OPSPILOT_MODEL`: `demo` or `<provider>:<model-name>`. */
  model: string;
  /** `OPSPILOT_CONTEXT_TOKENS`: the window, when the operator knows it better than the family default. */
  contextTokens?: number;
  /** `OPSPILOT_CONTEXT_TARGET_TOKENS`: the request size to aim for, when the default share of the window is not wanted. */
  targetTokens?: number;
}

interface Family {
  name: string;
  pattern: RegExp;
  windowTokens: number;
  encoding: Encoding;
  margin: number;
}

/**
 * Known families, first match wins. gpt-4o and gpt-4.1 are counted with their own encoding;
 * the others with cl100k and a margin, because their tokenizers are not bundled (Qwen's is
 * close to cl100k in English and denser in Chinese; Claude's makes more tokens than cl100k).
 */
const FAMILIES: readonly Family[] = [
  { name: "gpt-4o", pattern: /(^|[/:])(chatgpt-)?gpt-4o/, windowTokens: 128_000, encoding: "o200k_base", margin: 1.02 },
  { name: "gpt-4.1", pattern: /(^|[/:])gpt-4\.1/, windowTokens: 128_000, encoding: "o200k_base", margin: 1.02 },
  { name: "gpt-3.5", pattern: /(^|[/:])gpt-3\.5/, windowTokens: 16_385, encoding: "cl100k_base", margin: 1.02 },
  { name: "qwen", pattern: /qwen/, windowTokens: 32_768, encoding: "cl100k_base", margin: 1.1 },
  { name: "claude", pattern: /claude/, windowTokens: 200_000, encoding: "cl100k_base", margin: 1.2 },
];

/** The demo model has no real window; 32k keeps its requests the size of a real model's. */
const DEMO: Family = { name: "demo", pattern: /^demo$/, windowTokens: 32_000, encoding: "cl100k_base", margin: 1.1 };

/** Llama, Mistral, a model served by Ollama or anything else unknown: a small window and a wide margin. */
const UNKNOWN: Family = { name: "unknown", pattern: /$^/, windowTokens: 8_192, encoding: "cl100k_base", margin: 1.25 };

/**
 * The default target: a quarter of the prompt limit, at least 6,144 tokens (a small window keeps
 * most of itself). Measured on the 40-step context bench: it keeps every request there under
 * 0.6× of LangChain's summarization at step 40 and over the thread, the turn-2 fact included.
 */
const TARGET_SHARE = 0.25;
const TARGET_FLOOR = 6_144;

/**
 * The context budget of the configured model: the family's defaults, `OPSPILOT_CONTEXT_TOKENS`
 * over its window and `OPSPILOT_CONTEXT_TARGET_TOKENS` over the default target.
 */
export function contextBudgetFor(source: ContextBudgetSource): ContextBudget {
  const family = familyOf(source.model);
  const windowTokens = source.contextTokens ?? family.windowTokens;
  const reserveOutputTokens = reserveFor(windowTokens);
  return {
    windowTokens,
    reserveOutputTokens,
    margin: family.margin,
    encoding: family.encoding,
    family: family.name,
    targetTokens: targetFor(windowTokens - reserveOutputTokens, source.targetTokens),
  };
}

/** The request size to aim for: `explicit`, or a quarter of the prompt limit and at least 6,144; never above the limit. */
export function targetFor(promptLimit: number, explicit?: number): number {
  return Math.min(promptLimit, explicit ?? Math.max(TARGET_FLOOR, Math.floor(promptLimit * TARGET_SHARE)));
}

/** Tokens kept for the reply: 4096 in a large window, an eighth of a small one. */
export function reserveFor(windowTokens: number): number {
  return Math.max(256, Math.min(4_096, Math.floor(windowTokens / 8)));
}

/** Tokens a request's prompt may use: the window less the reply's reserve. */
export function inputLimitOf(budget: ContextBudget): number {
  return budget.windowTokens - budget.reserveOutputTokens;
}

/** Tokens a request's prompt aims to stay under: the budget's target, never above its prompt limit. */
export function targetOf(budget: ContextBudget): number {
  return Math.min(inputLimitOf(budget), budget.targetTokens ?? Number.POSITIVE_INFINITY);
}

function familyOf(model: string): Family {
  const value = model.trim().toLowerCase();
  if (value === "demo") return DEMO;
  // `openai:qwen2.5:7b`: the provider is the first segment; the rest names the model.
  const name = value.includes(":") ? value.slice(value.indexOf(":") + 1) : value;
  return FAMILIES.find((family) => family.pattern.test(name)) ?? UNKNOWN;
}
