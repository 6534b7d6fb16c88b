import { describe, expect, it } from "vitest";
import { skipPostgres } from "../fixtures/postgres-cluster.js";
import { runRaceSuite } from "../fixtures/soak/race-suite.js";

// A slice of `npm run soak`'s resume races: two long-lived processes per database.
describe("the resume-race soak, a slice", () => {
  it("gives every race between two processes exactly one winner, a clear conflict to the other and one write", async () => {
    const backends = skipPostgres ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);
    const report = await runRaceSuite(
      { runs: 10 * backends.length, timeLimitMs: 90_000, seed: 1 },
      { backends: [...backends], threadsPerRound: 10 },
    );
    expect(report.violations).toEqual([]);
    expect(report.runs).toBe(10 * backends.length);
    for (const backend of backends) {
      const conflicts =
        (report.figures[`${backend}: loser got thread_busy`] ?? 0) +
        (report.figures[`${backend}: loser got not_paused`] ?? 0);
      const wins = (report.figures[`${backend}: won by A`] ?? 0) + (report.figures[`${backend}: won by B`] ?? 0);
      expect([conflicts, wins]).toEqual([10, 10]);
    }
  }, 120_000);
});
