import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ConfigError } from "../../contracts/errors.js";
import type { Env } from "../../config/env.js";

/** The settings a model is loaded from (a subset of `Env`, so `loadEnv()` output fits). */
export type ModelSettings = Pick<Env, "OPSPILOT_MODEL" | "OPSPILOT_MODEL_TIMEOUT_MS" | "OPSPILOT_MODEL_MAX_RETRIES"> &
  Partial<Pick<Env, "OPENAI_API_KEY" | "OPENAI_BASE_URL" | "ANTHROPIC_API_KEY" | "ANTHROPIC_BASE_URL">>;

/** Which model a configuration names. */
export type ModelSpec = { provider: "demo" } | ProviderSpec;

/** A provider's model: an endpoint and a model name (the demo model is the app's, `src/app/chat-model.ts`). */
export type ProviderSpec = { provider: "openai" | "anthropic"; model: string; baseURL: string; apiKey?: string };

/** Where `openai:<model>` goes when no base URL is set. */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Where `anthropic:<model>` goes when no base URL is set (the SDK appends `/v1/messages`). */
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";

const SUPPORTED = 'use "demo", "openai:<model-name>" (for example openai:gpt-4o-mini) or "anthropic:<model-name>"';

/** Key sent to loopback endpoints that need none (the OpenAI client refuses an empty key). */
const LOOPBACK_PLACEHOLDER_KEY = "not-needed";

/** Reads and checks the model configuration; a bad one throws `ConfigError` with one line. */
export function parseModelSpec(
  settings: Omit<ModelSettings, "OPSPILOT_MODEL_TIMEOUT_MS" | "OPSPILOT_MODEL_MAX_RETRIES">,
): ModelSpec {
  const value = settings.OPSPILOT_MODEL.trim();
  if (value === "demo") return { provider: "demo" };
  const separator = value.indexOf(":");
  const provider = separator < 0 ? value : value.slice(0, separator);
  const model = separator < 0 ? "" : value.slice(separator + 1).trim();
  if (provider !== "openai" && provider !== "anthropic")
    throw new ConfigError(`OPSPILOT_MODEL "${value}" is not supported: ${SUPPORTED}.`);
  if (!model)
    throw new ConfigError(
      provider === "openai"
        ? `OPSPILOT_MODEL "${value}" names no model: write it as openai:<model-name> (for example openai:gpt-4o-mini).`
        : `OPSPILOT_MODEL "${value}" names no model: write it as anthropic:<model-name> (for example anthropic:claude-sonnet-4-5).`,
    );
  if (provider === "anthropic") return anthropicSpec(model, settings);

  const baseURL = (settings.OPENAI_BASE_URL?.trim() || DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, "");
  const url = parseHttpUrl(baseURL);
  if (!url)
    throw new ConfigError(
      "OPENAI_BASE_URL is not a valid http(s) URL (for example https://api.deepseek.com/v1 or http://127.0.0.1:11434/v1).",
    );
  const apiKey = settings.OPENAI_API_KEY?.trim() || undefined;
  if (!apiKey && !isLoopback(url)) {
    throw new ConfigError(
      `OPENAI_API_KEY is required for ${url.origin}; set it, or point OPENAI_BASE_URL at a local endpoint such as http://127.0.0.1:11434/v1 (Ollama).`,
    );
  }
  return { provider: "openai", model, baseURL, apiKey };
}

/** The Anthropic endpoint of `anthropic:<model>`; a key is required unless the base URL is on this machine. */
function anthropicSpec(
  model: string,
  settings: Pick<ModelSettings, "ANTHROPIC_API_KEY" | "ANTHROPIC_BASE_URL">,
): ModelSpec {
  const baseURL = (settings.ANTHROPIC_BASE_URL?.trim() || DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, "");
  const url = parseHttpUrl(baseURL);
  if (!url)
    throw new ConfigError("ANTHROPIC_BASE_URL is not a valid http(s) URL (for example https://api.anthropic.com).");
  const apiKey = settings.ANTHROPIC_API_KEY?.trim() || undefined;
  if (!apiKey && !isLoopback(url))
    throw new ConfigError(
      `ANTHROPIC_API_KEY is required for ${url.origin}; set it to a key from console.anthropic.com.`,
    );
  return { provider: "anthropic", model, baseURL, apiKey };
}

/**
 * Builds a provider's chat model: an OpenAI-compatible endpoint or Anthropic. Its client is
 * loaded here, on first use: a process pays the start-up of the SDK it talks to, not of the one
 * it does not. The app's `loadChatModel` builds the demo model itself and calls this for the rest.
 */
export async function loadProviderModel(spec: ProviderSpec, settings: ModelSettings): Promise<BaseChatModel> {
  const options = {
    model: spec.model,
    baseURL: spec.baseURL,
    apiKey: spec.apiKey ?? LOOPBACK_PLACEHOLDER_KEY,
    timeoutMs: settings.OPSPILOT_MODEL_TIMEOUT_MS,
    maxRetries: settings.OPSPILOT_MODEL_MAX_RETRIES,
  };
  switch (spec.provider) {
    case "openai": {
      const { createOpenAIChatModel } = await import("./openai-model.js");
      return createOpenAIChatModel(options);
    }
    case "anthropic": {
      const { createAnthropicChatModel } = await import("./anthropic-model.js");
      return createAnthropicChatModel(options);
    }
    default: {
      const _exhaustive: never = spec.provider;
      throw new ConfigError(`Unknown model provider ${String(_exhaustive)}.`);
    }
  }
}

/** One line for the server's start-up line: which model, where; never the key. */
export function describeModel(settings: ModelSettings): string {
  const spec = parseModelSpec(settings);
  return spec.provider === "demo" ? "demo (offline demo model)" : `${spec.provider}:${spec.model} at ${spec.baseURL}`;
}

function parseHttpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the endpoint is on this machine (Ollama, vLLM, LM Studio), where a key is optional. */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host);
}
