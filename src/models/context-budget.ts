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
}

/** What the budget is derived from. */
export interface ContextBudgetSource {
  /** `OPSPILOT_MODEL`: `demo` or `<provider>:<model-name>`. */
  model: string;
  /** `OPSPILOT_CONTEXT_TOKENS`: the window, when the operator knows it better than the family default. */
  contextTokens?: number;
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

/** The context budget of the configured model: the family's defaults, `OPSPILOT_CONTEXT_TOKENS` over its window. */
export function contextBudgetFor(source: ContextBudgetSource): ContextBudget {
  const family = familyOf(source.model);
  const windowTokens = source.contextTokens ?? family.windowTokens;
  return {
    windowTokens,
    reserveOutputTokens: reserveFor(windowTokens),
    margin: family.margin,
    encoding: family.encoding,
    family: family.name,
  };
}

/** Tokens kept for the reply: 4096 in a large window, an eighth of a small one. */
export function reserveFor(windowTokens: number): number {
  return Math.max(256, Math.min(4_096, Math.floor(windowTokens / 8)));
}

/** Tokens a request's prompt may use: the window less the reply's reserve. */
export function inputLimitOf(budget: ContextBudget): number {
  return budget.windowTokens - budget.reserveOutputTokens;
}

function familyOf(model: string): Family {
  const value = model.trim().toLowerCase();
  if (value === "demo") return DEMO;
  // `openai:qwen2.5:7b`: the provider is the first segment; the rest names the model.
  const name = value.includes(":") ? value.slice(value.indexOf(":") + 1) : value;
  return FAMILIES.find((family) => family.pattern.test(name)) ?? UNKNOWN;
}
