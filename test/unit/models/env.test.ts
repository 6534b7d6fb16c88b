import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EnvSchema, loadEnv } from "../../../src/config/env.js";
import { ConfigError } from "../../../src/contracts/errors.js";

function configError(env: Record<string, string>): ConfigError {
  try {
    loadEnv(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("loadEnv accepted a bad environment");
}

describe("loadEnv", () => {
  it("gives every setting its default when the environment is empty", () => {
    expect(loadEnv({})).toEqual({
      OPSPILOT_MODEL: "demo",
      OPSPILOT_MODEL_TIMEOUT_MS: 60_000,
      OPSPILOT_MODEL_MAX_RETRIES: 2,
      OPSPILOT_DB: "./.opspilot/opspilot.sqlite",
      HOST: "127.0.0.1",
      PORT: 8787,
      OPSPILOT_SHUTDOWN_GRACE_SECONDS: 30,
      OPSPILOT_RATE_LIMIT_PER_MINUTE: 60,
      OPSPILOT_CHECKPOINTS: "history",
      OPSPILOT_DEPENDENCY_PROBE_INTERVAL: "60s",
      OPSPILOT_LOG_LEVEL: "info",
      OPSPILOT_PRICE_INPUT_PER_MTOK: 0,
      OPSPILOT_PRICE_OUTPUT_PER_MTOK: 0,
      OPSPILOT_PAUSE_WEBHOOK_FORMAT: "json",
      OPSPILOT_INCIDENT_WEBHOOK_FORMAT: "json",
      OPSPILOT_ALERT_USER: { id: "alertmanager", role: "operator" },
    });
  });

  it("reads and converts the values it is given, treating blank ones as unset", () => {
    const env = loadEnv({
      OPSPILOT_MODEL: "openai:deepseek-chat",
      OPENAI_API_KEY: " sk-abc ",
      OPENAI_BASE_URL: "https://api.deepseek.com/v1",
      OPSPILOT_MODEL_TIMEOUT_MS: "15000",
      OPSPILOT_MODEL_MAX_RETRIES: "0",
      DATABASE_URL: "postgres://ops:secret@db:5432/opspilot",
      PORT: "0",
      OPSPILOT_METRICS_TOKEN: "scrape-token-0003",
      OPSPILOT_RATE_LIMIT_PER_MINUTE: "0",
      OPSPILOT_LOG_LEVEL: "debug",
      HOST: "   ",
      UNRELATED: "ignored",
    });
    expect(env).toMatchObject({
      OPSPILOT_MODEL: "openai:deepseek-chat",
      OPENAI_API_KEY: "sk-abc",
      OPENAI_BASE_URL: "https://api.deepseek.com/v1",
      OPSPILOT_MODEL_TIMEOUT_MS: 15_000,
      OPSPILOT_MODEL_MAX_RETRIES: 0,
      DATABASE_URL: "postgres://ops:secret@db:5432/opspilot",
      PORT: 0,
      HOST: "127.0.0.1",
      OPSPILOT_METRICS_TOKEN: "scrape-token-0003",
      OPSPILOT_RATE_LIMIT_PER_MINUTE: 0,
      OPSPILOT_LOG_LEVEL: "debug",
    });
    expect(env).not.toHaveProperty("UNRELATED");
  });

  it("parses API tokens into a token → user map", () => {
    const env = loadEnv({ OPSPILOT_API_TOKENS: "alice-token-1=alice:admin, bob-token-22=bob@example.com:viewer" });
    expect(env.OPSPILOT_API_TOKENS).toEqual(
      new Map([
        ["alice-token-1", { id: "alice", role: "admin" }],
        ["bob-token-22", { id: "bob@example.com", role: "viewer" }],
      ]),
    );
  });

  it.each([
    [{ PORT: "http" }, "Invalid environment: PORT must be an integer from 0 to 65535."],
    [{ PORT: "70000" }, "Invalid environment: PORT must be an integer from 0 to 65535."],
    [
      { OPSPILOT_MODEL_TIMEOUT_MS: "5" },
      "Invalid environment: OPSPILOT_MODEL_TIMEOUT_MS must be an integer from 1000 to 600000.",
    ],
    [
      { OPSPILOT_MODEL_MAX_RETRIES: "1.5" },
      "Invalid environment: OPSPILOT_MODEL_MAX_RETRIES must be an integer from 0 to 10.",
    ],
    [
      { OPENAI_BASE_URL: "api.openai.com" },
      "Invalid environment: OPENAI_BASE_URL must be an http(s) URL such as https://api.openai.com/v1.",
    ],
    [
      { ANTHROPIC_BASE_URL: "api.anthropic.com" },
      "Invalid environment: ANTHROPIC_BASE_URL must be an http(s) URL such as https://api.anthropic.com.",
    ],
    [{ DATABASE_URL: "mysql://x" }, "Invalid environment: DATABASE_URL must be a postgres:// or postgresql:// URL."],
    [
      { OPSPILOT_LOG_LEVEL: "verbose" },
      "Invalid environment: OPSPILOT_LOG_LEVEL must be one of debug, info, warn, error, silent.",
    ],
    [
      { OPSPILOT_API_TOKENS: "short=alice:admin" },
      "Invalid environment: OPSPILOT_API_TOKENS entry 1 must look like token=user:role (token at least 8 characters, no spaces, '=' or ',').",
    ],
    [
      { OPSPILOT_API_TOKENS: "alice-token-1=alice:root" },
      'Invalid environment: OPSPILOT_API_TOKENS entry 1 role "root" is not one of viewer, operator, admin.',
    ],
    [
      { OPSPILOT_API_TOKENS: "alice-token-1=alice:admin,alice-token-1=bob:viewer" },
      "Invalid environment: OPSPILOT_API_TOKENS entry 2 repeats a token already listed.",
    ],
    [
      { OPSPILOT_METRICS_TOKEN: "short" },
      "Invalid environment: OPSPILOT_METRICS_TOKEN must be at least 8 characters without spaces.",
    ],
    [
      { OPSPILOT_RATE_LIMIT_PER_MINUTE: "-1" },
      "Invalid environment: OPSPILOT_RATE_LIMIT_PER_MINUTE must be an integer from 0 to 100000.",
    ],
    [
      { OPSPILOT_SHUTDOWN_GRACE_SECONDS: "30s" },
      "Invalid environment: OPSPILOT_SHUTDOWN_GRACE_SECONDS must be an integer from 0 to 3600.",
    ],
  ])("rejects %o with one clear line", (env, message) => {
    const error = configError(env);
    expect(error.message).toBe(message);
    expect(error.code).toBe("config_invalid");
  });

  it("names every bad variable in the same single line and never echoes secrets", () => {
    const error = configError({ PORT: "x", OPSPILOT_API_TOKENS: "secret-token-value=alice:superuser" });
    expect(error.message.split("\n")).toHaveLength(1);
    expect(error.message).toContain("PORT");
    expect(error.message).toContain("OPSPILOT_API_TOKENS");
    expect(error.message).not.toContain("secret-token-value");
  });
});

describe(".env.example", () => {
  it("lists every key loadEnv reads", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8");
    const missing = Object.keys(EnvSchema.shape).filter((key) => !new RegExp(`^#? ?${key}=`, "m").test(example));
    expect(missing).toEqual([]);
  });
});
