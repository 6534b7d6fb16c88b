import { describe, expect, it } from "vitest";
import { demoTools, makeContext, makeStore, runTool } from "./helpers.js";

describe("rollback_deploy", () => {
  it("rolls payment-service in prod back to the previous version", async () => {
    const store = makeStore();
    const result = await runTool(store, "rollback_deploy", { service: "payment-service", environment: "prod" });
    expect(result).toEqual({
      action: "rollback",
      service: "payment-service",
      environment: "prod",
      rolledBackAt: "2025-06-11T08:00:00.000Z",
      fromVersion: "3.8.2",
      toVersion: "3.8.1",
      statusBefore: "degraded",
      statusAfter: "recovering",
    });
    expect(await store.getMetrics("payment-service", "prod")).toMatchObject({
      version: "3.8.1",
      previousVersion: "3.8.0",
    });
  });

  it("returns the recorded result for a repeated idempotency key even though the version moved", async () => {
    const store = makeStore();
    const context = makeContext({ callId: "call-rb" });
    const first = await runTool(store, "rollback_deploy", { service: "payment-service", environment: "prod" }, context);
    const second = await runTool(
      store,
      "rollback_deploy",
      { service: "payment-service", environment: "prod" },
      context,
    );
    expect(second).toEqual(first);
    expect(await store.countActions({ action: "rollback" })).toBe(1);
    expect((await store.getMetrics("payment-service", "prod")).version).toBe("3.8.1");
  });

  it("rolls back to a named earlier release", async () => {
    const store = makeStore();
    const result = await runTool(store, "rollback_deploy", {
      service: "payment-service",
      environment: "prod",
      toVersion: "3.7.4",
    });
    expect(result).toMatchObject({ fromVersion: "3.8.2", toVersion: "3.7.4" });
    expect((await store.getMetrics("payment-service", "prod")).previousVersion).toBeNull();
  });

  it("refuses a version that is not an earlier release and records nothing", async () => {
    const store = makeStore();
    const attempt = runTool(store, "rollback_deploy", {
      service: "payment-service",
      environment: "prod",
      toVersion: "3.9.0-rc.1",
    });
    await expect(attempt).rejects.toMatchObject({
      errorCode: "invalid_args",
      message:
        "3.9.0-rc.1 is not an earlier release of payment-service (running 3.8.2; earlier releases: 3.7.4, 3.8.0, 3.8.1).",
    });
    expect(await store.countActions()).toBe(0);
  });

  it("is a high-risk write for admins only", () => {
    const tool = demoTools(makeStore()).get("rollback_deploy")!;
    expect([tool.readOnly, tool.risk, tool.roles]).toEqual([false, "high", ["admin"]]);
  });
});
