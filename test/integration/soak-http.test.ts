import { describe, expect, it } from "vitest";
import { runHttpSuite } from "../fixtures/soak/http-suite.js";

// A slice of `npm run soak`'s malformed requests, against a real server on 127.0.0.1.
describe("the malformed-request soak, a slice", () => {
  it("answers 500 malformed requests without a 5xx, with the JSON error shape on every 4xx, and stays up", async () => {
    const report = await runHttpSuite({ runs: 500, timeLimitMs: 60_000, seed: 1 });
    expect(report.violations).toEqual([]);
    expect(report.runs).toBe(500);
    const answered = Object.entries(report.figures)
      .filter(([figure]) => figure.startsWith("status "))
      .reduce((sum, [, count]) => sum + count, 0);
    const unanswered = Object.entries(report.figures)
      .filter(([figure]) => figure.includes("closed before the response") || figure.startsWith("not sent"))
      .reduce((sum, [, count]) => sum + count, 0);
    expect(answered + unanswered).toBe(500);
    expect(Object.keys(report.figures).filter((figure) => /^status 5/.test(figure))).toEqual([]);
  }, 90_000);
});
