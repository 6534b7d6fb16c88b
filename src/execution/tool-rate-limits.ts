import { createHash } from "node:crypto";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Observation } from "../contracts/observation.js";
import type { RunUser } from "../contracts/user.js";
import type { ToolDefinition } from "../tools/types.js";
import { memoryBudgets, type BudgetStore } from "./rate-limit-store.js";

/** Longest key the PostgreSQL store's `varchar(255)` column holds; longer keys are stored as their digest. */
const MAX_KEY_LENGTH = 255;

/** A give-back that lands after its window ended opens the next window this short (seconds), so it credits nobody. */
const GIVE_BACK_WINDOW_SECONDS = 0.001;

/** Options of `ToolRateLimits`. */
export interface ToolRateLimitsOptions {
  /** Where the budgets are counted: this process's memory when omitted. */
  store?: BudgetStore;
  /** Told when the store could not count a call (the call is refused as `transient`) or give a point back. */
  onStoreError?: (message: string, error: unknown) => void;
}

/**
 * The per-minute call budgets of `rateLimit` policies, counted in the given store (in
 * PostgreSQL every process of a deployment draws from the same budgets). One instance serves
 * a graph, so every run of every user draws from the same budget.
 */
export class ToolRateLimits {
  /** Where the budgets are counted. */
  readonly store: BudgetStore;
  private readonly onStoreError: NonNullable<ToolRateLimitsOptions["onStoreError"]>;
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(options: ToolRateLimitsOptions = {}) {
    this.store = options.store ?? memoryBudgets();
    this.onStoreError = options.onStoreError ?? (() => undefined);
  }

  /**
   * Takes one call from the tool's budgets, or refuses with `rate_limited` and how long to
   * wait. The per-user budget is drawn first and given back when the shared one refuses,
   * so a refused call never costs its user a point. A store that cannot count refuses the
   * call as `transient`: a budget that cannot be checked is not granted.
   */
  async take(tool: ToolDefinition, user: RunUser): Promise<Observation | undefined> {
    const budgets = this.budgetsOf(tool, user);
    const drawn: Draw[] = [];
    for (const [index, budget] of budgets.entries()) {
      const draw = await drawFrom(budget);
      switch (draw.kind) {
        case "taken":
          drawn.push(draw);
          break;
        case "refused":
          // Earlier budgets get points back; a refused point left there would outlive the holders that return theirs.
          if (index < budgets.length - 1) drawn.push(draw);
          await this.giveBack(drawn);
          return rateLimited(tool, budget.words, draw.waitMs);
        case "failed":
          this.onStoreError(`${tool.name}: the call budget could not be counted; the call was refused`, draw.error);
          await this.giveBack(drawn);
          return uncounted(tool);
        default: {
          const _exhaustive: never = draw;
          return _exhaustive;
        }
      }
    }
    return undefined;
  }

  private budgetsOf(tool: ToolDefinition, user: RunUser): Budget[] {
    const { perMinute, perUserPerMinute } = tool.rateLimit ?? {};
    const budgets: Budget[] = [];
    if (perUserPerMinute !== undefined)
      budgets.push({
        limiter: this.limiter(perUserPerMinute),
        key: budgetKey(tool.name, "user", perUserPerMinute, user.id),
        words: `${calls(perUserPerMinute)} per minute per user`,
      });
    if (perMinute !== undefined)
      budgets.push({
        limiter: this.limiter(perMinute),
        key: budgetKey(tool.name, "all", perMinute, "all"),
        words: `${calls(perMinute)} per minute`,
      });
    return budgets;
  }

  /** Returns the points of `drawn` whose windows are still open, side by side (one round trip each). */
  private async giveBack(drawn: Draw[]): Promise<void> {
    const open = drawn.filter((draw) => draw.kind !== "failed" && draw.windowEndsAt > Date.now());
    await Promise.all(
      open.map(async ({ budget }) => {
        try {
          await budget.limiter.reward(budget.key, 1, { customDuration: GIVE_BACK_WINDOW_SECONDS });
        } catch (error) {
          this.onStoreError(`${budget.key}: a refused call's point could not be given back`, error);
        }
      }),
    );
  }

  private limiter(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = this.store.budget(points);
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

/** One per-minute budget a call draws from. */
interface Budget {
  limiter: RateLimiterAbstract;
  /** The budget's row: tool, scope and limit (a config change of the limit starts a new budget), then whose. */
  key: string;
  /** The limit in words, for the refusal. */
  words: string;
}

/** What drawing one point from a budget did. */
type Draw =
  | { kind: "taken"; budget: Budget; windowEndsAt: number }
  | { kind: "refused"; budget: Budget; windowEndsAt: number; waitMs: number }
  | { kind: "failed"; budget: Budget; error: unknown };

async function drawFrom(budget: Budget): Promise<Draw> {
  try {
    const taken = await budget.limiter.consume(budget.key);
    return { kind: "taken", budget, windowEndsAt: Date.now() + taken.msBeforeNext };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) return { kind: "failed", budget, error: rejection };
    const waitMs = Math.max(1, rejection.msBeforeNext);
    return { kind: "refused", budget, windowEndsAt: Date.now() + rejection.msBeforeNext, waitMs };
  }
}

function budgetKey(tool: string, scope: "user" | "all", points: number, who: string): string {
  const key = `${tool}|${scope}|${points}|${who}`;
  return key.length <= MAX_KEY_LENGTH ? key : `sha256:${createHash("sha256").update(key).digest("hex")}`;
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

function uncounted(tool: ToolDefinition): Observation {
  return {
    ok: false,
    errorCode: "transient",
    message: `${tool.name} was not called: its call budget could not be checked just now. Try again shortly, or answer with what you have.`,
  };
}
