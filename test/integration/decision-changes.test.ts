import { describe, expect, it } from "vitest";
import { pauseOf } from "../fixtures/mcp-app.js";
import { demoUser, useDemoApp } from "../fixtures/demo-app.js";

describe("what an answer is credited with", () => {
  const demo = useDemoApp("opspilot-decision-changes-");

  it("lists only the fields the person filled, not the defaults the tool's schema added, live and reloaded", async () => {
    const first = await demo.ask("show me the error logs of payment-service");
    const pause = pauseOf(first.events);
    const [call] = pause.calls;
    expect(call).toMatchObject({ tool: "search_logs", missing: [{ name: "environment" }] });
    const resumed = await demo.resume(first.threadId, [
      { callId: call!.callId, action: "approve", params: { environment: "prod" } },
    ]);

    const result = resumed.find((event) => event.type === "tool_result");
    // The call ran with the schema's defaults ...
    expect(result).toMatchObject({ args: { environment: "prod", sinceHours: 24, limit: 20 } });
    // ... but the answer only gave the environment.
    // A low-risk call that only waited for the field was filled, not approved.
    const credited = {
      action: "approve",
      by: demoUser.id,
      kind: "params",
      changes: [{ field: "environment", after: "prod" }],
    };
    expect(result).toMatchObject({ decision: credited });
    expect((result as { decision: { changes: unknown[] } }).decision.changes).toHaveLength(1);
    const view = await demo.app.runtime.getThread(first.threadId, demoUser);
    const message = view.messages.find((candidate) => candidate.role === "tool" && candidate.tool === "search_logs");
    expect(message).toMatchObject({ decision: credited });
  });

  it("credits an answer to a high-risk call as an approval, also when it filled a field", async () => {
    const first = await demo.ask("restart payment-service");
    const [call] = pauseOf(first.events).calls;
    expect(call).toMatchObject({ tool: "restart_service", risk: "high" });
    const missing = "missing" in call! && call.missing ? { params: { environment: "staging" } } : {};
    const resumed = await demo.resume(first.threadId, [{ callId: call!.callId, action: "approve", ...missing }]);
    const result = resumed.find((event) => event.type === "tool_result");
    expect(result).toMatchObject({ ok: true, decision: { action: "approve", by: demoUser.id, kind: "approval" } });
  });
});
