import { QuotaExceededError } from "../../contracts/errors.js";
import type { UsageStore } from "../../storage/types.js";
import { nextUtcMidnight, utcDay } from "../../storage/records/usage-day.js";

/** What each user may spend per UTC day; an unset quota is unlimited. */
export interface DailyQuotas {
  /** Runs a user may start. */
  runs?: number;
  /** Tokens a user's runs may spend. */
  tokens?: number;
  /** Dollars a user's runs may spend, at the configured prices. */
  costUsd?: number;
}

/** What the check is asked before: a new run counts against `runs`; a resume or a recovery continues one. */
export type QuotaEntry = "start" | "continue";

/**
 * Refuses a run whose user has spent a daily quota, reading the usage every process shares
 * through the database. The check is at the loop's entry only: a run already going is never
 * cut short by it, so a day's spending may pass the quota by what its last runs spend.
 */
export async function checkQuotas(options: {
  usage: UsageStore;
  quotas: DailyQuotas;
  userId: string;
  entry: QuotaEntry;
  /** Epoch ms; the clock by default. */
  now?: number;
}): Promise<void> {
  const { quotas } = options;
  if (quotas.runs === undefined && quotas.tokens === undefined && quotas.costUsd === undefined) return;
  const now = options.now ?? Date.now();
  const spent = await options.usage.usageOn(options.userId, utcDay(now));
  const over: Array<{ quota: string; spent: string }> = [];
  if (options.entry === "start" && quotas.runs !== undefined && spent.runs >= quotas.runs)
    over.push({ quota: "runs", spent: `${spent.runs} of ${quotas.runs} runs` });
  if (quotas.tokens !== undefined && spent.tokens >= quotas.tokens)
    over.push({ quota: "tokens", spent: `${spent.tokens} of ${quotas.tokens} tokens` });
  if (quotas.costUsd !== undefined && spent.costUsd >= quotas.costUsd)
    over.push({ quota: "costUsd", spent: `$${spent.costUsd.toFixed(4)} of $${quotas.costUsd.toFixed(2)}` });
  const first = over[0];
  if (!first) return;
  const resetsAtMs = nextUtcMidnight(now);
  const resetsAt = new Date(resetsAtMs).toISOString();
  const retryAfterSeconds = Math.max(1, Math.ceil((resetsAtMs - now) / 1000));
  throw new QuotaExceededError(
    first.quota,
    resetsAt,
    retryAfterSeconds,
    `Daily quota reached: ${options.userId} has used ${first.spent} today (UTC); it resets at ${resetsAt}.`,
  );
}
