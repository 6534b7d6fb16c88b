import type { Env } from "../config/env.js";
import type { ConfigFile } from "../config/schema.js";
import type { RunOptionsInput } from "../graph/config.js";
import { checkCeilings, type LimitPolicy } from "../graph/limits.js";
import type { LimitName, RunLimits } from "../contracts/limits.js";
import { ConfigError, LimitAboveCeilingError } from "../contracts/errors.js";
import type { DailyQuotas } from "../service/runtime/quotas.js";

/** The environment variable that sets each limit's default and ceiling. */
export const LIMIT_ENV_KEYS: Readonly<Record<LimitName, keyof Env>> = Object.freeze({
  maxSteps: "OPSPILOT_MAX_STEPS",
  maxWallTimeMs: "OPSPILOT_MAX_WALL_TIME_MS",
  maxToolFailsInRow: "OPSPILOT_MAX_TOOL_FAILS",
  identicalCallLimit: "OPSPILOT_IDENTICAL_CALL_LIMIT",
  tokenBudget: "OPSPILOT_TOKEN_BUDGET",
  costBudgetUsd: "OPSPILOT_COST_BUDGET_USD",
});

/** What the environment and the config file make of every run: its defaults and what it may ask for. */
export interface ServerRunLimits {
  /** Every run's options before it asks for its own: the limits set in the environment and the prices. */
  defaults: RunOptionsInput;
  /** The ceilings (the same environment limits) and the config file's profiles. */
  policy: LimitPolicy;
}

/**
 * Reads the server's run limits. A limit set in the environment is both the default and the
 * ceiling; a profile looser than a ceiling stops start-up, since every run picking it would be refused.
 */
export function serverRunLimits(env: Env, config: Pick<ConfigFile, "profiles">): ServerRunLimits {
  const ceilings: Record<string, number> = {};
  for (const [name, key] of Object.entries(LIMIT_ENV_KEYS)) {
    const value = env[key];
    if (typeof value === "number") ceilings[name] = value;
  }
  const policy: LimitPolicy = {
    ceilings: ceilings as RunLimits,
    ceilingSources: LIMIT_ENV_KEYS,
    profiles: config.profiles ?? {},
  };
  for (const [name, limits] of Object.entries(policy.profiles)) {
    try {
      checkCeilings(limits, policy);
    } catch (error) {
      if (error instanceof LimitAboveCeilingError)
        throw new ConfigError(`profiles.${name}.${error.limit}: ${error.message}`);
      throw error;
    }
  }
  const defaults: RunOptionsInput = {
    ...ceilings,
    inputPricePerMillion: env.OPSPILOT_PRICE_INPUT_PER_MTOK,
    outputPricePerMillion: env.OPSPILOT_PRICE_OUTPUT_PER_MTOK,
  };
  return { defaults, policy };
}

/** The daily per-user quotas the environment sets; unset ones are unlimited. */
export function dailyQuotas(env: Env): DailyQuotas {
  return {
    ...(env.OPSPILOT_QUOTA_RUNS_PER_DAY !== undefined ? { runs: env.OPSPILOT_QUOTA_RUNS_PER_DAY } : {}),
    ...(env.OPSPILOT_QUOTA_TOKENS_PER_DAY !== undefined ? { tokens: env.OPSPILOT_QUOTA_TOKENS_PER_DAY } : {}),
    ...(env.OPSPILOT_QUOTA_COST_USD_PER_DAY !== undefined ? { costUsd: env.OPSPILOT_QUOTA_COST_USD_PER_DAY } : {}),
  };
}
