import { describe, expect, it, vi } from "vitest";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { contextBudgetFor, inputLimitOf } from "../../../src/models/context-budget.js";
import { tokenCounter } from "../../../src/models/token-count.js";
import { loadEnv } from "../../../src/config/env.js";
import { ConfigError } from "../../../src/contracts/errors.js";
import { contextBudgetOf } from "../../../src/app/hosted-graph.js";

describe("the context budget of a model", () => {
  it.each([
    ["openai:gpt-4o-mini", 128_000, "o200k_base", "gpt-4o"],
    ["openai:gpt-4.1", 128_000, "o200k_base", "gpt-4.1"],
    ["openai:gpt-3.5-turbo", 16_385, "cl100k_base", "gpt-3.5"],
    ["openai:qwen-plus", 32_768, "cl100k_base", "qwen"],
    ["openai:qwen2.5:7b", 32_768, "cl100k_base", "qwen"],
    ["anthropic:claude-sonnet-4-5", 200_000, "cl100k_base", "claude"],
    ["openai:llama3.1:8b", 8_192, "cl100k_base", "unknown"],
    ["openai:deepseek-chat", 8_192, "cl100k_base", "unknown"],
    ["demo", 32_000, "cl100k_base", "demo"],
  ])("%s: a %i-token window counted with %s", (model, windowTokens, encoding, family) => {
    expect(contextBudgetFor({ model })).toMatchObject({ windowTokens, encoding, family });
  });

  it("reserves 4096 tokens for the reply in a large window and an eighth of a small one", () => {
    expect(inputLimitOf(contextBudgetFor({ model: "openai:gpt-4o" }))).toBe(128_000 - 4_096);
    expect(inputLimitOf(contextBudgetFor({ model: "openai:llama3" }))).toBe(8_192 - 1_024);
  });

  it("takes OPSPILOT_CONTEXT_TOKENS over the family's window, and counts unknown models with the widest margin", () => {
    const env = loadEnv({ OPSPILOT_MODEL: "openai:llama3.1", OPSPILOT_CONTEXT_TOKENS: "65536" });
    const budget = contextBudgetFor({ model: env.OPSPILOT_MODEL, contextTokens: env.OPSPILOT_CONTEXT_TOKENS });
    expect(budget).toEqual({
      windowTokens: 65_536,
      reserveOutputTokens: 4_096,
      margin: 1.25,
      encoding: "cl100k_base",
      family: "unknown",
      targetTokens: 15_360,
    });
    expect(() => loadEnv({ OPSPILOT_CONTEXT_TOKENS: "1000" })).toThrow(ConfigError);
    expect(() => loadEnv({ OPSPILOT_CONTEXT_TOKENS: "lots" })).toThrow(/OPSPILOT_CONTEXT_TOKENS/);
  });

  it("takes OPSPILOT_CONTEXT_TARGET_TOKENS over the default target, within the window's prompt limit", () => {
    const env = loadEnv({ OPSPILOT_MODEL: "openai:qwen-plus", OPSPILOT_CONTEXT_TARGET_TOKENS: "12000" });
    const source = { model: env.OPSPILOT_MODEL, targetTokens: env.OPSPILOT_CONTEXT_TARGET_TOKENS };
    expect(contextBudgetFor(source).targetTokens).toBe(12_000);
    expect(contextBudgetFor({ ...source, contextTokens: 8_192 }).targetTokens).toBe(8_192 - 1_024);
    expect(contextBudgetFor({ model: "openai:qwen-plus" }).targetTokens).toBe(7_168);
    expect(loadEnv({ OPSPILOT_CONTEXT_TARGET_TOKENS: "" }).OPSPILOT_CONTEXT_TARGET_TOKENS).toBeUndefined();
  });

  it("is what the server, the CLI and the hosted graph build from the environment, the target included", () => {
    const env = loadEnv({ OPSPILOT_MODEL: "openai:qwen-plus", OPSPILOT_CONTEXT_TARGET_TOKENS: "12000" });
    expect(contextBudgetOf(env).targetTokens).toBe(12_000);
    expect(contextBudgetOf(loadEnv({ OPSPILOT_MODEL: "openai:qwen-plus" })).targetTokens).toBe(7_168);
  });

  it.each(["lots", "500", "12000.5", "-1"])(
    "refuses OPSPILOT_CONTEXT_TARGET_TOKENS=%s with a message that says why",
    (value) => {
      expect(() => loadEnv({ OPSPILOT_CONTEXT_TARGET_TOKENS: value })).toThrow(
        new ConfigError(
          "Invalid environment: OPSPILOT_CONTEXT_TARGET_TOKENS must be an integer from 1024 to 10000000.",
        ),
      );
    },
  );
});

describe("the offline token counter", () => {
  const reference = new Tiktoken(cl100k);
  const counter = tokenCounter("cl100k_base");

  it("counts what js-tiktoken counts, in English, Chinese, JSON and special-token text", () => {
    for (const text of [
      "Check the payment service's recent errors and compare them with the runbooks.",
      "看看支付服务最近报错，顺便对照一下文档里的处理建议。",
      JSON.stringify({ ok: true, data: { code: "PAY-5031", lines: ['a "quoted" line\n', "第二行"] } }),
      "a text that mentions <|endoftext|> as plain text",
    ])
      expect(counter.count(text)).toBe(reference.encode(text, [], []).length);
  });

  it("counts a long unbroken run in slices, and as js-tiktoken counts the whole", () => {
    const run = (length: number) =>
      Array.from({ length }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join("");
    // js-tiktoken alone needs about half a second for 600 such characters, and half a minute for 4,000:
    // its merge is quadratic in a piece's length, so no piece it is handed may be long.
    expect(counter.count(run(600))).toBe(reference.encode(run(600), [], []).length);
    const encode = vi.spyOn(Tiktoken.prototype, "encode");
    try {
      const tokens = counter.count(run(4_000));
      expect(encode).toHaveBeenCalled();
      expect(Math.max(...encode.mock.calls.map(([piece]) => piece.length))).toBeLessThanOrEqual(25);
      expect(tokens).toBeLessThanOrEqual(Buffer.byteLength(run(4_000)));
      expect(tokens).toBeGreaterThan(4_000);
    } finally {
      encode.mockRestore();
    }
  });

  it.each([
    ["cl100k_base", cl100k],
    ["o200k_base", o200k],
  ] as const)(
    "counts ASCII characters and numbers of up to three digits as js-tiktoken does (%s)",
    (encoding, ranks) => {
      const exact = new Tiktoken(ranks);
      const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
      const numbers = [1, 2, 3].flatMap((digits) =>
        Array.from({ length: 10 ** digits }, (_, value) => String(value).padStart(digits, "0")),
      );
      const texts = [...ascii, ascii.join(""), ascii.join(" "), `a;b"c'd\\e\u0000f\u007f!`, ...numbers];
      texts.push(numbers.join(" "), "12345678 ٣٤٥ ½ 2026-01-01T00:13:00.123Z", `${numbers.slice(0, 300).join("")}`);
      for (const text of texts) expect(tokenCounter(encoding).count(text)).toBe(exact.encode(text, [], []).length);
    },
  );
});
