import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Observation } from "../contracts/observation.js";
import type { RunUser } from "../contracts/user.js";
import type { PlannedCall } from "../contracts/calls.js";
import type { WriteJournal } from "../storage/types.js";
import { withFallback } from "../tools/policy.js";
import type { ToolRegistry } from "../tools/registry.js";
import { sourceOf } from "../tools/tool-view.js";
import type { ToolContext, ToolDefinition } from "../tools/types.js";
import { runCall, type CallOutcome } from "./call-tool.js";
import { runWrite } from "./write-journal.js";

/**
 * The per-minute call budgets of `rateLimit` policies, kept in this process's memory (each
 * process of a scaled-out deployment counts on its own). One instance serves a graph, so
 * every run of every user draws from the same budget.
 */
export class ToolRateLimits {
  private readonly limiters = new Map<string, RateLimiterMemory>();

  /**
   * Takes one call from the tool's budgets, or refuses with `rate_limited` and how long to
   * wait. The per-user budget is drawn first and given back when the shared one refuses,
   * so a refused call never costs its user a point.
   */
  async take(tool: ToolDefinition, user: RunUser): Promise<Observation | undefined> {
    const { perMinute, perUserPerMinute } = tool.rateLimit ?? {};
    const budgets: Budget[] = [];
    if (perUserPerMinute !== undefined)
      budgets.push({
        limiter: this.limiter(tool.name, "user", perUserPerMinute),
        key: user.id,
        words: `${calls(perUserPerMinute)} per minute per user`,
      });
    if (perMinute !== undefined)
      budgets.push({
        limiter: this.limiter(tool.name, "all", perMinute),
        key: "all",
        words: `${calls(perMinute)} per minute`,
      });
    const taken: Budget[] = [];
    for (const budget of budgets) {
      const waitMs = await consume(budget.limiter, budget.key);
      if (waitMs !== undefined) {
        for (const earlier of taken) await earlier.limiter.reward(earlier.key, 1);
        return rateLimited(tool, budget.words, waitMs);
      }
      taken.push(budget);
    }
    return undefined;
  }

  private limiter(tool: string, scope: string, points: number): RateLimiterMemory {
    // Keyed by the limit too: a config change replaces the budget instead of keeping the old one.
    const key = `${tool}|${scope}|${points}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points, duration: 60 });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}

/** One per-minute budget a call draws from. */
interface Budget {
  limiter: RateLimiterMemory;
  key: string;
  /** The limit in words, for the refusal. */
  words: string;
}

/** What one call needs to run under its tool's policy. */
export interface GovernedCallOptions {
  /** The validated call. */
  call: PlannedCall;
  /** Its tool, with the config's policy applied. */
  tool: ToolDefinition;
  /** Context without the signal. */
  context: Omit<ToolContext, "signal">;
  /** Cancels the run. */
  signal: AbortSignal;
  /** The write journal (writes only). */
  journal: WriteJournal;
  /** Tells which servers are up and which fallbacks exist. */
  registry: ToolRegistry;
  /** The graph's call budgets. */
  limits: ToolRateLimits;
}

/**
 * Runs one ready call under its tool's policy: a tool whose server is down or whose budget
 * is spent is refused before the call reaches it; reads go to the executor, writes through
 * the journal; a failure lists the configured fallbacks the user may call now; and the
 * observation names its source and when it was obtained.
 */
export async function runGoverned(options: GovernedCallOptions): Promise<CallOutcome> {
  const { call, tool, context, signal, journal, registry, limits } = options;
  const admit = async (): Promise<Observation | undefined> => {
    const down = registry.unavailableReason(tool.name);
    if (down !== undefined) {
      return {
        ok: false,
        errorCode: "transient",
        message: `${tool.name} is unavailable: its server ${tool.source?.server ?? ""} is down (${down}).`,
      };
    }
    return limits.take(tool, context.user);
  };
  const outcome = tool.readOnly
    ? await runCall({ tool, args: call.args, context, signal, admit })
    : await runWrite({ call, tool, context, signal, journal, admit });
  if (outcome.kind !== "observation") return outcome;
  const observation = withFallback(outcome.observation, tool, { registry, role: context.user.role });
  return {
    ...outcome,
    observation: {
      ...observation,
      source: observation.source ?? sourceOf(tool),
      fetchedAt: observation.fetchedAt ?? new Date().toISOString(),
    },
  };
}

async function consume(limiter: RateLimiterMemory, key: string): Promise<number | undefined> {
  try {
    await limiter.consume(key);
    return undefined;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return Math.max(1, rejection.msBeforeNext);
    throw rejection;
  }
}

function calls(count: number): string {
  return count === 1 ? "1 call" : `${count} calls`;
}

function rateLimited(tool: ToolDefinition, limit: string, retryAfterMs: number): Observation {
  const seconds = Math.ceil(retryAfterMs / 1000);
  return {
    ok: false,
    errorCode: "rate_limited",
    message: `${tool.name} is limited to ${limit}; it was not called. Wait ${seconds} s before proposing it again, or answer with what you have.`,
    retryAfterMs,
  };
}
