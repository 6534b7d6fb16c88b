import { describe, expect, it } from "vitest";
import { runCrashSuite } from "../fixtures/soak/crash-suite.js";
import { skipPostgres } from "../fixtures/postgres-cluster.js";

// A slice of `npm run soak`'s crash suite: the same named kills every time, on both backends.
describe("the crash soak, a slice", () => {
  it("leaves every thread killed right after its input checkpoint, inside review_calls or between the journal entry and the effect in one state its user can act on", async () => {
    const backends = skipPostgres ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);
    const report = await runCrashSuite(
      { runs: 3 * backends.length, timeLimitMs: 90_000, seed: 1 },
      {
        backends: [...backends],
        points: ["after-input-checkpoint", "in-review", "after-journal-start"],
        stepDelayMs: 0,
      },
    );
    expect(report.violations).toEqual([]);
    expect(report.runs).toBe(3 * backends.length);
    for (const backend of backends) expect(report.figures[`${backend}: killed at a named point`]).toBe(3);
  }, 120_000);
});
