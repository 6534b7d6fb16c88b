import { RunOptionsSchema, type RunOptions, type RunOptionsInput } from "../../graph/config.js";
import { resolveRunLimits, withinCeilings, type LimitPolicy, type RunOptionsRequest } from "../../graph/limits.js";
import type { RunLimits } from "../../contracts/limits.js";
import type { RunUser } from "../../contracts/user.js";

/** A run's options and the limits it asked for itself (stored, so a resume from any process keeps them). */
export interface ResolvedRunOptions {
  asked: RunLimits;
  options: RunOptions;
}

/**
 * Builds a run's options: the defaults, the limits it `kept` from its start (held under today's
 * ceilings), its profile, then its own values; a limit it asks for above its ceiling throws.
 */
export function runOptionsFor(settings: { policy: LimitPolicy; defaults?: RunOptionsInput }) {
  return (user: RunUser, request: RunOptionsRequest = {}, kept: RunLimits = {}): ResolvedRunOptions => {
    const { profile, ...given } = request;
    const asked = resolveRunLimits(settings.policy, { ...given, profile });
    const limits = { ...withinCeilings(kept, settings.policy), ...asked };
    return {
      asked,
      options: RunOptionsSchema.parse({ ...settings.defaults, ...given, ...limits, userId: user.id, role: user.role }),
    };
  };
}
