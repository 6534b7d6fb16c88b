import { describe, expect, it } from "vitest";
import { makeStore, runTool } from "./helpers.js";

type DocsResult = {
  query: string;
  results: Array<{ id: string; title: string; errorCodes: string[]; advice: string[] }>;
};

describe("search_docs", () => {
  it("ranks the payment errors runbook RB-003 first for a Chinese question", async () => {
    const result = (await runTool(makeStore(), "search_docs", { query: "支付服务 报错 处理" })) as DocsResult;
    expect(result.results.map((doc) => doc.id)).toEqual(["RB-003", "RB-012", "RB-005"]);
    expect(result.results[0].advice[0]).toBe(
      "查看银行网关状态页和各渠道的 PAY-5031 数量；若集中在某一渠道，将该渠道流量切到备用渠道。",
    );
  });

  it("ranks RB-003 first for an English question and answers in English", async () => {
    const result = (await runTool(makeStore(), "search_docs", { query: "payment service errors" })) as DocsResult;
    expect(result.results[0].id).toBe("RB-003");
    expect(result.results[0].title).toBe(
      "Payment service errors: upstream bank gateway timeout and DB pool exhaustion",
    );
    expect(result.results[0].errorCodes).toEqual(["PAY-5031", "DB_POOL_EXHAUSTED", "UPSTREAM_RETRY"]);
    expect(result.results[0].advice).toHaveLength(6);
    expect(result.results[0].advice[2]).toBe(
      "If DB_POOL_EXHAUSTED keeps appearing after retries are reduced, do a rolling restart of payment-service (RB-001) to release stuck connections.",
    );
  });

  it("ranks RB-003 first for the payment error codes, before the generic pool runbook", async () => {
    const result = (await runTool(makeStore(), "search_docs", { query: "PAY-5031 DB_POOL_EXHAUSTED" })) as DocsResult;
    expect(result.results.map((doc) => doc.id).slice(0, 2)).toEqual(["RB-003", "RB-002"]);
  });

  it("ranks RB-003 first for the user's full sentence", async () => {
    const result = (await runTool(makeStore(), "search_docs", {
      query: "看看支付服务最近报错，顺便对照一下文档里的处理建议",
      limit: 1,
    })) as DocsResult;
    expect(result.results.map((doc) => doc.id)).toEqual(["RB-003"]);
  });

  it("finds the rollback runbook by the Chinese word 回滚", async () => {
    const result = (await runTool(makeStore(), "search_docs", { query: "回滚" })) as DocsResult;
    expect(result.results[0].id).toBe("RB-004");
  });

  it("returns an empty list and the query when no runbook matches", async () => {
    const result = await runTool(makeStore(), "search_docs", { query: "quantum entanglement" });
    expect(result).toEqual({ query: "quantum entanglement", results: [] });
  });
});
