import { z } from "zod";
import { integer } from "./values.js";

/** The chat model, its endpoint and its context window. */
export const MODEL_VARS = {
  OPSPILOT_MODEL: z
    .string()
    .default("demo")
    .describe(
      'Chat model: "demo" (offline, default), "openai:<model-name>" for any OpenAI-compatible endpoint, or "anthropic:<model-name>"',
    ),
  OPENAI_API_KEY: z
    .string()
    .optional()
    .describe(
      "API key of the OpenAI-compatible endpoint; optional when the base URL is loopback (Ollama, vLLM on this host)",
    ),
  OPENAI_BASE_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://api.openai.com/v1" })
    .optional()
    .describe("Base URL of the OpenAI-compatible endpoint (default https://api.openai.com/v1)"),
  ANTHROPIC_API_KEY: z
    .string()
    .optional()
    .describe("API key of the Anthropic Messages API, for anthropic:<model-name>"),
  ANTHROPIC_BASE_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://api.anthropic.com" })
    .optional()
    .describe("Base URL of the Anthropic Messages API, without /v1 (default https://api.anthropic.com)"),
  OPSPILOT_MODEL_TIMEOUT_MS: integer(1_000, 600_000)
    .default(60_000)
    .describe(
      "Time limit of one model request attempt, in ms: for the reply to start, then for each pause in its stream (never the whole reply)",
    ),
  OPSPILOT_MODEL_MAX_RETRIES: integer(0, 10)
    .default(2)
    .describe("Retries of a model request on 429, 5xx, timeouts and network errors (never on other 4xx)"),
  OPSPILOT_CONTEXT_TOKENS: integer(2_048, 10_000_000)
    .optional()
    .describe(
      "Context window of the model in tokens (prompt and reply); unset: the model family's (gpt-4o/4.1 128000, gpt-3.5 16385, qwen 32768, claude 200000, demo 32000, others 8192)",
    ),
  OPSPILOT_CONTEXT_TARGET_TOKENS: integer(1_024, 10_000_000)
    .optional()
    .describe(
      "Prompt tokens a model request aims to stay under: above it, older turns and steps fold into working memory (the latest step may pass it); at or above the window's prompt limit, requests may fill the window; unset: a quarter of the prompt limit, at least 6144",
    ),
};
