import { PROFILE_NAME, type RunLimitsRequest } from "../contracts/limits.js";
import { CliUsageError } from "./cli-error.js";

/** The flags that set one run's limits, as `parseArgs` returns them. */
export interface LimitFlagValues {
  profile?: string;
  "max-steps"?: string;
  "max-time"?: string;
  "token-budget"?: string;
  "cost-budget"?: string;
}

/** `parseArgs` options of the limit flags. */
export const LIMIT_FLAG_OPTIONS = {
  profile: { type: "string" },
  "max-steps": { type: "string" },
  "max-time": { type: "string" },
  "token-budget": { type: "string" },
  "cost-budget": { type: "string" },
} as const;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Reads the limit flags into the run's options; a bad value throws `CliUsageError` naming the flag. */
export function parseLimitFlags(values: LimitFlagValues): RunLimitsRequest {
  const limits: RunLimitsRequest = {};
  if (values.profile !== undefined) {
    if (!PROFILE_NAME.test(values.profile))
      throw new CliUsageError(`--profile must be a profile name: letters, digits, _ and - (got "${values.profile}").`);
    limits.profile = values.profile;
  }
  const steps = values["max-steps"];
  if (steps !== undefined) limits.maxSteps = integer("--max-steps", steps, 1, 100);
  const time = values["max-time"];
  if (time !== undefined) limits.maxWallTimeMs = duration(time);
  const tokens = values["token-budget"];
  if (tokens !== undefined) limits.tokenBudget = integer("--token-budget", tokens, 1, 1_000_000_000);
  const cost = values["cost-budget"];
  if (cost !== undefined) limits.costBudgetUsd = dollars(cost);
  return limits;
}

function integer(flag: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < min || number > max)
    throw new CliUsageError(`${flag} must be an integer from ${min} to ${max} (got "${value}").`);
  return number;
}

/** `90s`, `2m`, `1500ms`, `1h`; a bare number is seconds. */
function duration(value: string): number {
  const match = DURATION.exec(value.trim());
  const ms = match ? Math.round(Number(match[1]) * UNIT_MS[match[2] ?? "s"]!) : NaN;
  if (!(ms >= 100))
    throw new CliUsageError(
      `--max-time must be a duration of at least 100ms, such as 90s, 2m or 1500ms (got "${value}").`,
    );
  return ms;
}

function dollars(value: string): number {
  const number = Number(value.trim().replace(/^\$/, ""));
  if (value.trim() === "" || !Number.isFinite(number) || number < 0)
    throw new CliUsageError(`--cost-budget must be an amount of dollars of 0 or more, such as 0.25 (got "${value}").`);
  return number;
}
