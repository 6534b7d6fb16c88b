import { describe, expect, it } from "vitest";
import { QuotaExceededError } from "../../../src/contracts/errors.js";
import { checkQuotas } from "../../../src/service/runtime/quotas.js";
import type { DailyUsage, UsageStore } from "../../../src/storage/types.js";
import { nextUtcMidnight, utcDay } from "../../../src/storage/records/usage-day.js";

/** Usage as the database would report it, for one user on one day. */
function usage(day: string, spent: DailyUsage): UsageStore {
  return {
    usageOn: async (_userId, asked) => (asked === day ? spent : { runs: 0, tokens: 0, costUsd: 0 }),
  };
}

const NOW = Date.UTC(2026, 11, 31, 22, 30, 0, 500);

describe("daily quotas", () => {
  it("keys usage by UTC day and resets at the next UTC midnight, across a year's end", () => {
    expect(utcDay(NOW)).toBe("2026-12-31");
    expect(new Date(nextUtcMidnight(NOW)).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("refuses a new run at the runs quota with the seconds until midnight, but lets a resume continue", async () => {
    const store = usage("2026-12-31", { runs: 3, tokens: 10, costUsd: 0 });
    const refused = checkQuotas({ usage: store, quotas: { runs: 3 }, userId: "alice", entry: "start", now: NOW });
    await expect(refused).rejects.toThrow(QuotaExceededError);
    await expect(refused).rejects.toMatchObject({
      quota: "runs",
      resetsAt: "2027-01-01T00:00:00.000Z",
      retryAfterSeconds: 5_400,
    });
    await expect(
      checkQuotas({ usage: store, quotas: { runs: 3 }, userId: "alice", entry: "continue", now: NOW }),
    ).resolves.toBeUndefined();
    await expect(
      checkQuotas({ usage: store, quotas: { runs: 4 }, userId: "alice", entry: "start", now: NOW }),
    ).resolves.toBeUndefined();
  });

  it("refuses any entry once the tokens or cost quota is spent, and counts only today's usage", async () => {
    const store = usage("2026-12-31", { runs: 1, tokens: 5_000, costUsd: 1.5 });
    await expect(
      checkQuotas({ usage: store, quotas: { tokens: 5_000 }, userId: "alice", entry: "continue", now: NOW }),
    ).rejects.toMatchObject({ quota: "tokens" });
    await expect(
      checkQuotas({ usage: store, quotas: { costUsd: 1.5 }, userId: "alice", entry: "start", now: NOW }),
    ).rejects.toMatchObject({
      quota: "costUsd",
      message:
        "Daily quota reached: alice has used $1.5000 of $1.50 today (UTC); it resets at 2027-01-01T00:00:00.000Z.",
    });
    const tomorrow = nextUtcMidnight(NOW) + 1;
    await expect(
      checkQuotas({
        usage: store,
        quotas: { tokens: 5_000, costUsd: 1.5 },
        userId: "alice",
        entry: "start",
        now: tomorrow,
      }),
    ).resolves.toBeUndefined();
  });
});
