import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { DemoChatModel } from "../demo/index.js";
import { loadProviderModel, parseModelSpec, type ModelSettings } from "../models/providers/provider.js";

/**
 * Builds the chat model the configuration names: the offline demo model (wired here, where the
 * app is), an OpenAI-compatible endpoint or Anthropic (`loadProviderModel`, which loads only the
 * SDK it talks to; the demo model loads neither).
 */
export async function loadChatModel(settings: ModelSettings): Promise<BaseChatModel> {
  const spec = parseModelSpec(settings);
  return spec.provider === "demo" ? new DemoChatModel() : loadProviderModel(spec, settings);
}

/**
 * The demo model, for a configuration that names it; a provider's model comes from
 * `loadChatModel`, which loads its client. Throws for any other model.
 */
export function demoModelOf(settings: ModelSettings): BaseChatModel {
  const spec = parseModelSpec(settings);
  if (spec.provider !== "demo")
    throw new Error(
      `${spec.provider}:${spec.model} is built by loadChatModel(), which loads its client; pass it as the model.`,
    );
  return new DemoChatModel();
}
