import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkLoopScript, loopScenario, runLoopScripts } from "../../fixtures/soak/loop-scripts.js";

describe("the loop under random scripts", () => {
  it("never breaks pairing and always ends with a stop reason", async () => {
    await fc.assert(
      fc.asyncProperty(loopScenario, async (scenario) => {
        expect(await checkLoopScript(scenario)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  }, 240_000);

  it("counts every script of a soak share and finds nothing broken", async () => {
    const report = await runLoopScripts({ runs: 40, timeLimitMs: 60_000, seed: 7 }, { worker: 1, workers: 2 });
    expect({ planned: report.planned, runs: report.runs, violations: report.violations }).toEqual({
      planned: 20,
      runs: 20,
      violations: [],
    });
  }, 60_000);
});
