import { describe, expect, it } from "vitest";
import { ChatOpenAI } from "@langchain/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { ConfigError } from "../../../src/contracts/errors.js";
import { DemoChatModel } from "../../../src/demo/index.js";
import { demoModelOf, loadChatModel } from "../../../src/app/chat-model.js";
import {
  describeModel,
  isLoopback,
  parseModelSpec,
  type ModelSettings,
} from "../../../src/models/providers/provider.js";

const base: ModelSettings = {
  OPSPILOT_MODEL: "demo",
  OPSPILOT_MODEL_TIMEOUT_MS: 60_000,
  OPSPILOT_MODEL_MAX_RETRIES: 2,
};

describe("loadChatModel", () => {
  it("builds the offline demo model by default, also without loading a provider", async () => {
    const model = await loadChatModel(base);
    expect(model).toBeInstanceOf(DemoChatModel);
    expect(demoModelOf(base)).toBeInstanceOf(DemoChatModel);
    expect(describeModel(base)).toBe("demo (offline demo model)");
  });

  it("builds a ChatOpenAI for openai:<model> with the key, base URL, timeout and retries", async () => {
    const settings = {
      ...base,
      OPSPILOT_MODEL: "openai:qwen-plus",
      OPENAI_API_KEY: "sk-123",
      OPENAI_BASE_URL: "https://dashscope.aliyuncs.com/compatible-mode/v1/",
      OPSPILOT_MODEL_TIMEOUT_MS: 15_000,
      OPSPILOT_MODEL_MAX_RETRIES: 4,
    };
    const model = (await loadChatModel(settings)) as ChatOpenAI;
    expect(model).toBeInstanceOf(ChatOpenAI);
    expect(model.model).toBe("qwen-plus");
    expect(model.apiKey).toBe("sk-123");
    expect(model.timeout).toBe(15_000);
    expect(model.clientConfig.baseURL).toBe("https://dashscope.aliyuncs.com/compatible-mode/v1");
    expect((model.caller as unknown as { maxRetries: number }).maxRetries).toBe(4);
    expect(describeModel(settings)).toBe("openai:qwen-plus at https://dashscope.aliyuncs.com/compatible-mode/v1");
  });

  it("defaults the base URL to OpenAI's and never reads OPENAI_BASE_URL from the process", () => {
    const spec = parseModelSpec({ OPSPILOT_MODEL: "openai:gpt-4o-mini", OPENAI_API_KEY: "sk-1" });
    expect(spec).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-1",
    });
  });

  it("builds a ChatAnthropic for anthropic:<model> with the key and the default base URL", async () => {
    const settings = { ...base, OPSPILOT_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: "sk-ant-123" };
    const model = (await loadChatModel(settings)) as ChatAnthropic;
    expect(model).toBeInstanceOf(ChatAnthropic);
    expect([model.model, model.apiKey, model.apiUrl]).toEqual([
      "claude-sonnet-4-5",
      "sk-ant-123",
      "https://api.anthropic.com",
    ]);
    expect(describeModel(settings)).toBe("anthropic:claude-sonnet-4-5 at https://api.anthropic.com");
    expect(
      parseModelSpec({ OPSPILOT_MODEL: "anthropic:claude-haiku-4-5", ANTHROPIC_BASE_URL: "http://127.0.0.1:4000/" }),
    ).toEqual({
      provider: "anthropic",
      model: "claude-haiku-4-5",
      baseURL: "http://127.0.0.1:4000",
      apiKey: undefined,
    });
  });

  it("accepts a missing key for a loopback endpoint such as Ollama", async () => {
    const model = (await loadChatModel({
      ...base,
      OPSPILOT_MODEL: "openai:llama3.1",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
    })) as ChatOpenAI;
    expect(model.apiKey).toBe("not-needed");
    expect(isLoopback(new URL("http://localhost:8000/v1"))).toBe(true);
    expect(isLoopback(new URL("http://[::1]:8000/v1"))).toBe(true);
    expect(isLoopback(new URL("http://10.0.0.5:8000/v1"))).toBe(false);
  });

  it.each([
    [
      "mistral:large",
      {},
      'OPSPILOT_MODEL "mistral:large" is not supported: use "demo", "openai:<model-name>" (for example openai:gpt-4o-mini) or "anthropic:<model-name>".',
    ],
    [
      "gpt-4o",
      {},
      'OPSPILOT_MODEL "gpt-4o" is not supported: use "demo", "openai:<model-name>" (for example openai:gpt-4o-mini) or "anthropic:<model-name>".',
    ],
    [
      "anthropic:",
      {},
      'OPSPILOT_MODEL "anthropic:" names no model: write it as anthropic:<model-name> (for example anthropic:claude-sonnet-4-5).',
    ],
    [
      "anthropic:claude-sonnet-4-5",
      {},
      "ANTHROPIC_API_KEY is required for https://api.anthropic.com; set it to a key from console.anthropic.com.",
    ],
    [
      "anthropic:claude-sonnet-4-5",
      { ANTHROPIC_API_KEY: "sk-ant-1", ANTHROPIC_BASE_URL: "ftp://models.local" },
      "ANTHROPIC_BASE_URL is not a valid http(s) URL (for example https://api.anthropic.com).",
    ],
    [
      "openai:",
      {},
      'OPSPILOT_MODEL "openai:" names no model: write it as openai:<model-name> (for example openai:gpt-4o-mini).',
    ],
    [
      "openai:gpt-4o-mini",
      {},
      "OPENAI_API_KEY is required for https://api.openai.com; set it, or point OPENAI_BASE_URL at a local endpoint such as http://127.0.0.1:11434/v1 (Ollama).",
    ],
    [
      "openai:deepseek-chat",
      { OPENAI_BASE_URL: "https://api.deepseek.com/v1" },
      "OPENAI_API_KEY is required for https://api.deepseek.com; set it, or point OPENAI_BASE_URL at a local endpoint such as http://127.0.0.1:11434/v1 (Ollama).",
    ],
    [
      "openai:gpt-4o-mini",
      { OPENAI_API_KEY: "sk-1", OPENAI_BASE_URL: "not a url" },
      "OPENAI_BASE_URL is not a valid http(s) URL (for example https://api.deepseek.com/v1 or http://127.0.0.1:11434/v1).",
    ],
    [
      "openai:gpt-4o-mini",
      { OPENAI_API_KEY: "sk-1", OPENAI_BASE_URL: "ftp://models.local/v1" },
      "OPENAI_BASE_URL is not a valid http(s) URL (for example https://api.deepseek.com/v1 or http://127.0.0.1:11434/v1).",
    ],
  ])("refuses OPSPILOT_MODEL=%s %o with one ConfigError line", async (model, extra, message) => {
    const settings = { ...base, OPSPILOT_MODEL: model, ...extra };
    await expect(loadChatModel(settings)).rejects.toThrow(ConfigError);
    await expect(loadChatModel(settings)).rejects.toThrow(message);
    expect(() => demoModelOf(settings)).toThrow(message);
    expect(message).not.toContain("\n");
  });

  it("leaves a provider's model to loadChatModel when asked for the demo model", () => {
    const settings = { ...base, OPSPILOT_MODEL: "openai:gpt-4o-mini", OPENAI_API_KEY: "sk-1" };
    expect(() => demoModelOf(settings)).toThrow(
      "openai:gpt-4o-mini is built by loadChatModel(), which loads its client; pass it as the model.",
    );
  });
});
