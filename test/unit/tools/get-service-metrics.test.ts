import { describe, expect, it } from "vitest";
import { makeStore, runTool } from "./helpers.js";

describe("get_service_metrics", () => {
  it("reports the degraded payment service in prod with its current metrics", async () => {
    const result = await runTool(makeStore(), "get_service_metrics", { service: "支付", environment: "prod" });
    expect(result).toEqual({
      service: "payment-service",
      name: "Payment Service",
      nameZh: "支付服务",
      environment: "prod",
      status: "degraded",
      version: "3.8.2",
      previousVersion: "3.8.1",
      restartCount: 0,
      lastRestartAt: null,
      metrics: { errorRatePercent: 7.8, p95LatencyMs: 2350, rps: 420, cpuPercent: 71, memoryPercent: 83, instances: 6 },
      window: "last 5 minutes",
      capturedAt: "2025-06-11T08:00:00.000Z",
    });
  });

  it("throws not_found for a service that does not exist", async () => {
    await expect(
      runTool(makeStore(), "get_service_metrics", { service: "billing-mainframe", environment: "prod" }),
    ).rejects.toMatchObject({
      errorCode: "not_found",
    });
  });
});
