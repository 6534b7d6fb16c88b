import { describe, expect, it } from "vitest";
import { queryTokens, segmentText, toMatchExpression } from "../../../src/tools/text-search/text.js";

describe("ops text segmentation", () => {
  it("splits Chinese into character bigrams so a two-character word matches inside a longer name", () => {
    expect(segmentText("支付服务", "query")).toEqual(["支付", "付服", "服务"]);
    expect(segmentText("支付服务", "index")).toEqual(["支付", "付服", "服务", "支", "付", "服", "务"]);
  });

  it("keeps error codes whole and also split into their parts", () => {
    expect(segmentText("PAY-5031 DB_POOL_EXHAUSTED")).toEqual([
      "pay5031",
      "pay",
      "5031",
      "dbpoolexhausted",
      "db",
      "pool",
      "exhausted",
    ]);
  });

  it("handles mixed scripts and drops stopwords from queries", () => {
    expect(queryTokens("show me the API网关 errors")).toEqual(["api", "网关", "errors"]);
  });

  it("quotes every token so FTS5 operators in the query stay plain words", () => {
    expect(toMatchExpression(["near", "not"], "OR")).toBe('"near" OR "not"');
    expect(toMatchExpression([], "AND")).toBeNull();
  });
});
