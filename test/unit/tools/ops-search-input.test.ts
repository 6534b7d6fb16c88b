import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeStore } from "./helpers.js";

describe("ops search input", () => {
  it("never throws on any query text, including FTS5 syntax and quotes", async () => {
    const store = makeStore();
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.constantFrom(
        '"',
        "NEAR(",
        "a OR",
        "*",
        "col:",
        "AND NOT",
        '支付"服务',
        "-",
        "^x",
        "'; DROP TABLE ops_logs; --",
      ),
    );
    await fc.assert(
      fc.asyncProperty(text, async (query) => {
        expect(Array.isArray(store.searchDocs(query))).toBe(true);
        expect(Array.isArray(await store.searchResources(query))).toBe(true);
        const logs = store.searchLogs({
          service: "payment-service",
          environment: "prod",
          sinceHours: 24,
          limit: 1,
          query,
        });
        expect(logs.total).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });
});
