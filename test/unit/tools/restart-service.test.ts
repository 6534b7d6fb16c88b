import { describe, expect, it } from "vitest";
import { demoTools, makeContext, makeStore, runTool } from "./helpers.js";

const RESTART = { service: "payment-service", environment: "prod", reason: "DB pool exhausted" };

describe("restart_service", () => {
  it("reports what it did and marks the service recovering", async () => {
    const store = makeStore();
    const result = await runTool(store, "restart_service", RESTART);
    expect(result).toEqual({
      action: "restart",
      service: "payment-service",
      environment: "prod",
      restartedAt: "2025-06-11T08:00:00.000Z",
      restartCount: 1,
      statusBefore: "degraded",
      statusAfter: "recovering",
      version: "3.8.2",
      reason: "DB pool exhausted",
    });
    expect(await store.getMetrics("payment-service", "prod")).toMatchObject({ status: "recovering", restartCount: 1 });
  });

  it("applies a restart once when called twice with the same idempotency key", async () => {
    const store = makeStore();
    const context = makeContext({ callId: "call-7" });
    const first = await runTool(store, "restart_service", RESTART, context);
    const second = await runTool(store, "restart_service", RESTART, context);
    expect(second).toEqual(first);
    expect(await store.countActions({ action: "restart", service: "payment-service", environment: "prod" })).toBe(1);
    expect((await store.listActions()).map((action) => action.idempotencyKey)).toEqual(["thread-1:call-7"]);
    expect((await store.getMetrics("payment-service", "prod")).restartCount).toBe(1);
  });

  it("restarts twice for two different idempotency keys", async () => {
    const store = makeStore();
    await runTool(store, "restart_service", RESTART, makeContext({ callId: "call-1" }));
    const second = await runTool(store, "restart_service", RESTART, makeContext({ callId: "call-2" }));
    expect(second).toMatchObject({ restartCount: 2, statusBefore: "recovering" });
    expect(await store.countActions({ action: "restart" })).toBe(2);
  });

  it("resolves a Chinese service name before restarting", async () => {
    const store = makeStore();
    const result = await runTool(store, "restart_service", { service: "订单服务", environment: "staging" });
    expect(result).toMatchObject({ service: "order-service", environment: "staging", reason: null });
    expect(await store.countActions({ service: "order-service", environment: "staging" })).toBe(1);
  });

  it("applies nothing when the call was already cancelled", async () => {
    const store = makeStore();
    const controller = new AbortController();
    controller.abort();
    await expect(
      runTool(store, "restart_service", RESTART, makeContext({ signal: controller.signal })),
    ).rejects.toMatchObject({
      errorCode: "cancelled",
    });
    expect(await store.countActions()).toBe(0);
  });

  it("is a high-risk write for operators and admins that asks for the environment", () => {
    const tool = demoTools(makeStore()).get("restart_service")!;
    expect([tool.readOnly, tool.risk, tool.roles, tool.timeoutMs]).toEqual([
      false,
      "high",
      ["operator", "admin"],
      10_000,
    ]);
    expect(Object.keys(tool.askUser ?? {})).toEqual(["environment"]);
  });
});
