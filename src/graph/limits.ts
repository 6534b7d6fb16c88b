import { LIMIT_NAMES, type LimitName, type RunLimits, type RunLimitsRequest } from "../contracts/limits.js";
import { LimitAboveCeilingError, UnknownProfileError } from "../contracts/errors.js";
import type { RunOptionsInput } from "./config.js";

/** What an operator allows runs: ceilings (the environment) and named profiles (the config file). */
export interface LimitPolicy {
  /** The loosest value a run may ask for, per limit; an unset one is bounded only by the option's own range. */
  ceilings: RunLimits;
  /** Where each ceiling is set (e.g. `OPSPILOT_MAX_STEPS`), so a refusal tells the caller what to change. */
  ceilingSources?: Partial<Record<LimitName, string>>;
  /** Named sets of limits a run may pick by name. */
  profiles: Readonly<Record<string, RunLimits>>;
}

/** A policy with no ceilings and no profiles: runs may ask for anything the options' ranges allow. */
export const OPEN_LIMIT_POLICY: LimitPolicy = Object.freeze({ ceilings: {}, profiles: {} });

/** The limits among `values`, ignoring every other key (users, prices, serial steps). */
export function limitsOf(values: Readonly<Record<string, unknown>>): RunLimits {
  const limits: Record<string, number> = {};
  for (const name of LIMIT_NAMES) {
    const value = values[name];
    if (typeof value === "number") limits[name] = value;
  }
  return limits as RunLimits;
}

/** Throws `LimitAboveCeilingError` for the first limit in `requested` looser than the policy's ceiling. */
export function checkCeilings(requested: RunLimits, policy: LimitPolicy): void {
  for (const name of LIMIT_NAMES) {
    const value = requested[name];
    const ceiling = policy.ceilings[name];
    if (value !== undefined && ceiling !== undefined && value > ceiling)
      throw new LimitAboveCeilingError(name, value, ceiling, policy.ceilingSources?.[name] ?? "server setting");
  }
}

/** `limits` with each one above its ceiling lowered to it: what a run kept from its start, under ceilings lowered since. */
export function withinCeilings(limits: RunLimits, policy: LimitPolicy): RunLimits {
  const held: Record<string, number> = {};
  for (const name of LIMIT_NAMES) {
    const value = limits[name];
    const ceiling = policy.ceilings[name];
    if (value !== undefined) held[name] = ceiling !== undefined ? Math.min(value, ceiling) : value;
  }
  return held as RunLimits;
}

/**
 * The limits one run asked for: its profile's, then the limits given beside it, each checked
 * against the ceilings. An unknown profile or a limit above its ceiling throws; nothing has started.
 */
export function resolveRunLimits(policy: LimitPolicy, request: RunLimitsRequest | undefined): RunLimits {
  const { profile, ...given } = request ?? {};
  let chosen: RunLimits = {};
  if (profile !== undefined) {
    const found = Object.hasOwn(policy.profiles, profile) ? policy.profiles[profile] : undefined;
    if (!found) throw new UnknownProfileError(profile, Object.keys(policy.profiles));
    chosen = found;
  }
  const resolved = { ...chosen, ...limitsOf(given) };
  checkCeilings(resolved, policy);
  return resolved;
}

/** Options a caller passes for one run: any run option, and a profile whose limits the given ones override. */
export type RunOptionsRequest = RunOptionsInput & { profile?: string };
