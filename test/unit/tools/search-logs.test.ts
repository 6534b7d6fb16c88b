import { describe, expect, it } from "vitest";
import { ToolError } from "../../../src/contracts/errors.js";
import { demoTools, makeStore, runTool } from "./helpers.js";

type LogsResult = {
  service: string;
  environment: string;
  total: number;
  byCode: Array<{ code: string; level: string; count: number; lastSeen: string; sample: string }>;
  lines: Array<{ ts: string; level: string; code: string | null; message: string }>;
};

describe("search_logs", () => {
  it("resolves 支付服务 to payment-service and counts the prod errors per code exactly", async () => {
    const result = (await runTool(makeStore(), "search_logs", {
      service: "支付服务",
      environment: "prod",
      level: "ERROR",
    })) as LogsResult;
    expect(result.service).toBe("payment-service");
    expect(result.environment).toBe("prod");
    expect(result.total).toBe(33);
    expect(result.byCode.map(({ code, count, lastSeen }) => ({ code, count, lastSeen }))).toEqual([
      { code: "PAY-5031", count: 24, lastSeen: "2025-06-11T07:58:25.000Z" },
      { code: "DB_POOL_EXHAUSTED", count: 9, lastSeen: "2025-06-11T07:57:40.000Z" },
    ]);
    expect(result.lines).toHaveLength(20);
    expect(result.lines[0]).toEqual({
      ts: "2025-06-11T07:58:25.000Z",
      level: "ERROR",
      code: "PAY-5031",
      message: "Upstream bank gateway timeout after 3350ms (channel=ICBC, order=o-4c9w)",
    });
  });

  it("counts every level of payment-service in prod over the last 24 hours", async () => {
    const result = (await runTool(makeStore(), "search_logs", {
      service: "payment-service",
      environment: "prod",
      limit: 5,
    })) as LogsResult;
    expect(result.total).toBe(68);
    expect(result.byCode.map(({ code, level, count }) => [code, level, count])).toEqual([
      ["PAY-5031", "ERROR", 24],
      ["DB_POOL_EXHAUSTED", "ERROR", 9],
      ["UPSTREAM_RETRY", "WARN", 8],
      ["DB_SLOW_QUERY", "WARN", 5],
    ]);
    expect(result.lines).toHaveLength(5);
  });

  it("filters lines by a Chinese or English word, matching the meaning of their error code", async () => {
    const store = makeStore();
    const chinese = (await runTool(store, "search_logs", {
      service: "payment",
      environment: "prod",
      query: "超时",
    })) as LogsResult;
    const english = (await runTool(store, "search_logs", {
      service: "Payment Service",
      environment: "prod",
      query: "timeout",
    })) as LogsResult;
    expect(chinese.total).toBe(24);
    expect(english.total).toBe(24);
  });

  it("treats 报错 in a query as the ERROR level", async () => {
    const result = (await runTool(makeStore(), "search_logs", {
      service: "支付服务",
      environment: "prod",
      query: "报错",
    })) as LogsResult;
    expect(result.total).toBe(33);
  });

  it("narrows the window with sinceHours", async () => {
    const result = (await runTool(makeStore(), "search_logs", {
      service: "payment-service",
      environment: "prod",
      level: "ERROR",
      sinceHours: 1,
    })) as LogsResult;
    expect(result.byCode.map(({ code, count }) => [code, count])).toEqual([
      ["PAY-5031", 8],
      ["DB_POOL_EXHAUSTED", 4],
    ]);
  });

  it("returns zero lines, not an error, when nothing matches", async () => {
    const result = (await runTool(makeStore(), "search_logs", {
      service: "coupon-service",
      environment: "prod",
      level: "ERROR",
    })) as LogsResult;
    expect(result).toMatchObject({ service: "coupon-service", environment: "prod", total: 0, byCode: [], lines: [] });
  });

  it("throws not_found naming the closest services for an unknown service", async () => {
    const failure = runTool(makeStore(), "search_logs", { service: "paymnet-service", environment: "prod" });
    await expect(failure).rejects.toBeInstanceOf(ToolError);
    await expect(failure).rejects.toMatchObject({
      errorCode: "not_found",
      message: 'No service is named "paymnet-service". Did you mean: payment-service (支付服务)?',
    });
  });

  it("asks the user for the environment while keeping it required in the schema", () => {
    const tool = demoTools(makeStore()).get("search_logs")!;
    expect(tool.askUser).toEqual({
      environment: {
        description: "Which environment? prod (production / 生产环境) or staging (预发环境)",
        enum: ["prod", "staging"],
      },
    });
    expect(tool.schema.safeParse({ service: "payment-service" }).success).toBe(false);
    expect(tool.readOnly).toBe(true);
    expect(tool.risk).toBe("low");
  });
});
