import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { z } from "zod";
import { ConfigError } from "../contracts/errors.js";
import { formatZodIssues } from "../contracts/zod-issues.js";
import { KNOWN_ROLES, type RunUser } from "../contracts/user.js";
import { ExpiresAfterSchema } from "./schema.js";

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

/** Shapes of a pause or incident notice's body (`src/service/notices/pause-webhook-body.ts`, `incident-notice-body.ts`). */
const PAUSE_WEBHOOK_FORMATS = ["json", "slack", "feishu", "dingtalk"] as const;

/** An integer variable in [min, max], with one message for every way it can be wrong. */
function integer(min: number, max: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** A decimal variable of `min` or more (prices, dollars). */
function decimal(min: number) {
  const error = `must be a number of ${min} or more`;
  return z.coerce.number({ error }).min(min, { error });
}

/**
 * Every environment variable opspilot reads, with its default. Add a key here (and to
 * `.env.example`); nothing else reads `process.env`. Blank values count as unset.
 */
export const EnvSchema = z.object({
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
  OPSPILOT_OIDC_ISSUER: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .optional()
    .describe(
      "OpenID provider whose JWT access tokens the HTTP API, the page and the LangGraph server accept (roles from auth.oidc.roles of the config file)",
    ),
  OPSPILOT_OIDC_AUDIENCE: z
    .string()
    .min(1)
    .optional()
    .describe("The audience (aud) the provider's access tokens must carry for opspilot; required with the issuer"),
  OPSPILOT_OIDC_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe("Public client id the page signs in with (authorization code with PKCE); unset: no sign-in button"),
  OPSPILOT_METRICS_TOKEN: z
    .string()
    .regex(/^\S{8,}$/, { error: "must be at least 8 characters without spaces" })
    .optional()
    .describe("Bearer token a Prometheus scraper sends to GET /metrics (an admin API token works too)"),
  OPSPILOT_ALERT_TOKEN: z
    .string()
    .regex(/^\S{16,}$/, { error: "must be at least 16 characters without spaces" })
    .optional()
    .describe("Bearer token Alertmanager sends to POST /api/alerts/alertmanager; unset turns alert intake off"),
  OPSPILOT_PAGERDUTY_SECRET: z
    .string()
    .regex(/^\S{16,}$/, { error: "must be at least 16 characters without spaces" })
    .optional()
    .describe(
      "Signing secret of the PagerDuty V3 webhook subscription posting to POST /api/alerts/pagerduty; unset turns PagerDuty intake off",
    ),
  OPSPILOT_SLACK_SIGNING_SECRET: z
    .string()
    .regex(/^\S{16,}$/, { error: "must be at least 16 characters without spaces" })
    .optional()
    .describe(
      "Signing secret of the Slack app whose Approve and Reject buttons post to POST /api/integrations/slack/interactions; unset turns Slack approvals off",
    ),
  OPSPILOT_ALERT_USER: z
    .string()
    .regex(/^[A-Za-z0-9._@-]+:[a-z_]+$/, { error: "must look like user:role" })
    .refine((value) => (KNOWN_ROLES as readonly string[]).includes(value.split(":")[1]!), {
      error: `the role must be one of ${KNOWN_ROLES.join(", ")}`,
    })
    .default("alertmanager:operator")
    .transform((value): RunUser => {
      const [id, role] = value.split(":") as [string, string];
      return Object.freeze({ id, role });
    })
    .describe("user:role that incident investigations run as and whose threads operators and admins share"),
  OPSPILOT_RATE_LIMIT_PER_MINUTE: integer(0, 100_000)
    .default(60)
    .describe(
      "Run starts (new threads, messages, resumes, recoveries) each API user, or each address without tokens, may make per minute; 0 disables",
    ),
  OPSPILOT_RETENTION_DAYS: integer(1, 36_500)
    .optional()
    .describe(
      "Days of checkpoints, events, raw results and records the server keeps, pruning once a day (unset: keeps everything)",
    ),
  OPSPILOT_CHECKPOINTS: z
    .enum(["history", "latest"], { error: "must be history or latest" })
    .default("history")
    .describe(
      "Which checkpoints a thread keeps: every one, as LangGraph keeps them (history), or only the latest once each run ends or pauses (latest)",
    ),
  OPSPILOT_LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"], { error: "must be one of debug, info, warn, error, silent" })
    .default("info")
    .describe("Log verbosity"),
  OPSPILOT_CONFIG: z
    .string()
    .optional()
    .describe("Path of opspilot.config.json (MCP servers, tool policies, runbooks); unset: the demo tools as they are"),
  OPSPILOT_MAX_STEPS: integer(1, 100)
    .optional()
    .describe("Default and ceiling of model turns with tool calls per run (unset: default 8, no ceiling)"),
  OPSPILOT_MAX_WALL_TIME_MS: integer(100, 86_400_000)
    .optional()
    .describe("Default and ceiling of a run's active wall time in ms (unset: default 120000, no ceiling)"),
  OPSPILOT_MAX_TOOL_FAILS: integer(1, 1_000)
    .optional()
    .describe("Default and ceiling of consecutive all-failed steps before too_many_fails (unset: default 3)"),
  OPSPILOT_IDENTICAL_CALL_LIMIT: integer(2, 1_000)
    .optional()
    .describe("Default and ceiling of identical proposals in a row before loop_detected (unset: default 3)"),
  OPSPILOT_TOKEN_BUDGET: integer(1, 1_000_000_000)
    .optional()
    .describe("Default and ceiling of the tokens one run may spend (unset: default 200000, no ceiling)"),
  OPSPILOT_COST_BUDGET_USD: decimal(0)
    .optional()
    .describe("Default and ceiling of the dollars one run may spend (needs prices; unset: no cost budget)"),
  OPSPILOT_PRICE_INPUT_PER_MTOK: decimal(0)
    .default(0)
    .describe("USD per million input tokens, for cost records and budgets"),
  OPSPILOT_PRICE_OUTPUT_PER_MTOK: decimal(0)
    .default(0)
    .describe("USD per million output tokens, for cost records and budgets"),
  OPSPILOT_APPROVAL_EXPIRES_AFTER: ExpiresAfterSchema.optional().describe(
    'How long an approval may wait ("5s", "30m", "2h", "1d") for every tool whose approvals.expiresAfter says nothing; then the call is answered approval_expired and the run goes on. Unset: approvals wait until answered',
  ),
  OPSPILOT_PAUSE_WEBHOOK: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://hooks.slack.com/services/..." })
    .optional()
    .describe("URL each new pause (a question or an approval waiting for a person) is POSTed to; unset: no notices"),
  OPSPILOT_PAUSE_WEBHOOK_FORMAT: z
    .enum(PAUSE_WEBHOOK_FORMATS, { error: `must be one of ${PAUSE_WEBHOOK_FORMATS.join(", ")}` })
    .default("json")
    .describe(
      "Body of a pause notice: generic json, or a text message for slack, feishu or dingtalk incoming webhooks",
    ),
  OPSPILOT_INCIDENT_WEBHOOK: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://hooks.slack.com/services/..." })
    .optional()
    .describe(
      "URL each answer and pause of a run on an incident's thread is POSTed to, whoever started the run; unset: no incident notices",
    ),
  OPSPILOT_INCIDENT_WEBHOOK_FORMAT: z
    .enum(PAUSE_WEBHOOK_FORMATS, { error: `must be one of ${PAUSE_WEBHOOK_FORMATS.join(", ")}` })
    .default("json")
    .describe(
      "Body of an incident notice: generic json, or a text message for slack, feishu or dingtalk incoming webhooks",
    ),
  OPSPILOT_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://opspilot.example.com" })
    .optional()
    .describe(
      "Address people open the web page at, for links in pause notices and the single sign-on callback (default http://HOST:PORT)",
    ),
  OPSPILOT_QUOTA_RUNS_PER_DAY: integer(1, 10_000_000)
    .optional()
    .describe("Runs each user may start per UTC day (unset: unlimited)"),
  OPSPILOT_QUOTA_TOKENS_PER_DAY: integer(1, 1_000_000_000_000)
    .optional()
    .describe("Tokens each user's runs may spend per UTC day (unset: unlimited)"),
  OPSPILOT_QUOTA_COST_USD_PER_DAY: decimal(0)
    .optional()
    .describe("Dollars each user's runs may spend per UTC day (needs prices; unset: unlimited)"),
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
 * (variables already set win, except blank ones, which count as unset), for `npm start` and
 * the CLI; the LangGraph server reads it itself.
 */
export function loadDotEnv(path = ".env"): void {
  if (!existsSync(path)) return;
  // Not process.loadEnvFile: it keeps a variable exported blank, which would hide the file's value.
  for (const [key, value] of Object.entries(parseEnv(readFileSync(path, "utf8"))))
    if (value !== undefined && !process.env[key]?.trim()) process.env[key] = value;
}
