import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { z } from "zod";
import { ConfigError } from "../contracts/errors.js";
import { formatZodIssues } from "../contracts/formats/zod-issues.js";
import { ACCESS_VARS } from "./env/access-vars.js";
import { MODEL_VARS } from "./env/model-vars.js";
import { NOTICE_VARS } from "./env/notice-vars.js";
import { QUOTA_VARS, RUN_LIMIT_VARS } from "./env/run-vars.js";
import { SERVER_VARS, UPKEEP_VARS } from "./env/server-vars.js";
import { WRITE_BACK_VARS } from "./env/write-back-vars.js";

/**
 * Every environment variable opspilot reads, with its default. Add a key here (and to
 * `.env.example`); nothing else reads `process.env`. Blank values count as unset.
 */
export const EnvSchema = z.object({
  ...MODEL_VARS,
  ...SERVER_VARS,
  ...ACCESS_VARS,
  ...UPKEEP_VARS,
  ...RUN_LIMIT_VARS,
  ...NOTICE_VARS,
  ...QUOTA_VARS,
  ...WRITE_BACK_VARS,
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
