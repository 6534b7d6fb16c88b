import { existsSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../contracts/errors.js";
import { formatZodIssues } from "../contracts/zod-issues.js";
import { KNOWN_ROLES, type RunUser } from "../contracts/user.js";

const TOKEN_ENTRY = /^([^\s=,]{8,})=([A-Za-z0-9._@-]+):([a-z_]+)$/;

/** Parses `token=user:role,token2=user2:role2` into a token → user map, reporting the first bad entry. */
function parseApiTokens(value: string, ctx: z.RefinementCtx): ReadonlyMap<string, RunUser> {
  const tokens = new Map<string, RunUser>();
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  for (const [index, entry] of entries.entries()) {
    const match = TOKEN_ENTRY.exec(entry);
    const [, token, userId, role] = match ?? [];
    let problem: string | undefined;
    if (!token || !userId || !role)
      problem = "must look like token=user:role (token at least 8 characters, no spaces, '=' or ',')";
    else if (!(KNOWN_ROLES as readonly string[]).includes(role))
      problem = `role "${role}" is not one of ${KNOWN_ROLES.join(", ")}`;
    else if (tokens.has(token)) problem = "repeats a token already listed";
    if (problem || !token || !userId || !role) {
      // The entry itself is never echoed: it holds a secret.
      ctx.addIssue({ code: "custom", message: `entry ${index + 1} ${problem}` });
      return z.NEVER;
    }
    tokens.set(token, Object.freeze({ id: userId, role }));
  }
  return tokens;
}

/** An integer variable in [min, max], with one message for every way it can be wrong. */
function integer(min: number, max: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/**
 * Every environment variable opspilot reads, with its default. Add a key here (and to
 * `.env.example`); nothing else reads `process.env`. Blank values count as unset.
 */
export const EnvSchema = z.object({
  OPSPILOT_MODEL: z
    .string()
    .default("demo")
    .describe('Chat model: "demo" (offline, default) or "openai:<model-name>" for any OpenAI-compatible endpoint'),
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
  OPSPILOT_MODEL_TIMEOUT_MS: integer(1_000, 600_000)
    .default(60_000)
    .describe("Time limit of one model request attempt, in ms"),
  OPSPILOT_MODEL_MAX_RETRIES: integer(0, 10)
    .default(2)
    .describe("Retries of a model request on 429, 5xx, timeouts and network errors (never on other 4xx)"),
  OPSPILOT_DB: z
    .string()
    .default("./.opspilot/opspilot.sqlite")
    .describe("SQLite file for checkpoints, the write journal and records"),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" })
    .optional()
    .describe("PostgreSQL URL; when set, replaces SQLite so several processes can share threads"),
  HOST: z.string().default("127.0.0.1").describe("Interface the HTTP server binds to"),
  PORT: integer(0, 65_535).default(8787).describe("Port of the HTTP server (0 picks a free one)"),
  OPSPILOT_API_TOKENS: z
    .string()
    .transform(parseApiTokens)
    .optional()
    .describe(
      "API bearer tokens: token=user:role,token2=user2:role2 (roles: viewer, operator, admin); unset serves only the local user",
    ),
  OPSPILOT_METRICS_TOKEN: z
    .string()
    .regex(/^\S{8,}$/, { error: "must be at least 8 characters without spaces" })
    .optional()
    .describe("Bearer token a Prometheus scraper sends to GET /metrics (an admin API token works too)"),
  OPSPILOT_RATE_LIMIT_PER_MINUTE: integer(0, 100_000)
    .default(60)
    .describe(
      "Run starts (new threads, messages, resumes, recoveries) each API user, or each address without tokens, may make per minute; 0 disables",
    ),
  OPSPILOT_LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"], { error: "must be one of debug, info, warn, error, silent" })
    .default("info")
    .describe("Log verbosity"),
  OPSPILOT_CONFIG: z
    .string()
    .optional()
    .describe("Path of opspilot.config.json (MCP servers, tool policies, runbooks); unset: the demo tools as they are"),
});

/** The validated settings, keyed by environment variable name. */
export type Env = z.infer<typeof EnvSchema>;

const envKeys = Object.keys(EnvSchema.shape) as Array<keyof Env>;

/**
 * Reads and validates opspilot's settings from `env` (the process environment by default).
 * Throws `ConfigError` with one line naming every bad variable.
 */
export function loadEnv(env: Record<string, string | undefined> = process.env): Env {
  const picked: Record<string, string> = {};
  for (const key of envKeys) {
    const value = env[key]?.trim();
    if (value) picked[key] = value;
  }
  const parsed = EnvSchema.safeParse(picked);
  if (parsed.success) return parsed.data;
  throw new ConfigError(`Invalid environment: ${formatZodIssues(parsed.error, { separator: " " })}.`);
}

/**
 * The whole process environment, which `${VAR}` references in the config file are filled
 * from; read here because this is the only module that touches `process.env`.
 */
export function environmentVariables(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/**
 * Loads `.env` from the working directory into the process environment when the file exists
 * (variables already set win), for `npm start` and the CLI; the LangGraph server reads it itself.
 */
export function loadDotEnv(path = ".env"): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
