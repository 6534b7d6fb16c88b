import { describe, expect, it } from "vitest";
import { makeStore, runTool } from "./helpers.js";

type ResourceResult = {
  query: string;
  results: Array<{ id: string; kind: string; status: string; description: string }>;
};

describe("search_resource", () => {
  it("finds payment-service first for the Chinese query 支付", async () => {
    const result = (await runTool(makeStore(), "search_resource", { query: "支付" })) as ResourceResult;
    expect(result.query).toBe("支付");
    expect(result.results[0]).toEqual({
      id: "payment-service",
      name: "Payment Service",
      nameZh: "支付服务",
      kind: "service",
      owner: "payments-team",
      tier: 1,
      status: "prod: degraded, staging: healthy",
      description: "通过上游银行网关完成扣款、退款与结算。",
    });
  });

  it("finds payment-service first for the English query payment, with an English description", async () => {
    const result = (await runTool(makeStore(), "search_resource", { query: "payment" })) as ResourceResult;
    expect(result.results[0].id).toBe("payment-service");
    expect(result.results[0].description).toBe(
      "Charges customers through the upstream bank gateway, handles refunds and settlement.",
    );
  });

  it("finds the API gateway by its Chinese name 网关", async () => {
    const result = (await runTool(makeStore(), "search_resource", { query: "网关" })) as ResourceResult;
    expect(result.results[0].id).toBe("api-gateway");
  });

  it("returns only environments when kind is environment, with a health summary", async () => {
    const result = (await runTool(makeStore(), "search_resource", {
      query: "生产",
      kind: "environment",
    })) as ResourceResult;
    expect(result.results.map((hit) => hit.id)).toEqual(["prod", "staging"]);
    expect(result.results[0].status).toBe("prod: 1 of 10 services not healthy: payment-service (degraded)");
  });

  it("returns an empty list and the query when nothing matches", async () => {
    const result = await runTool(makeStore(), "search_resource", { query: "mainframe cobol" });
    expect(result).toEqual({ query: "mainframe cobol", results: [] });
  });
});
