import BetterSqlite3 from "better-sqlite3";
import { Command } from "@langchain/langgraph";
import type { HITLRequest, HITLResponse } from "langchain";
import { describe, expect, expectTypeOf, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import { decisionsFromHitl, type HitlResponse } from "../../../src/contracts/pause/hitl.js";
import { pendingInterrupt } from "../../../src/graph/pause.js";
import { createDemoTools, OpsStore } from "../../../src/demo/index.js";
import { createHarness, shape } from "../../fixtures/harness.js";

const RESTART = { service: "payment-service", environment: "prod", reason: "PAY-5031 storm" };
const OPERATOR = { userId: "olga", role: "operator" };

function restartGraph(script = [callsMessage([{ name: "restart_service", args: RESTART, id: "w1" }])]) {
  const ops = new OpsStore(new BetterSqlite3(":memory:"));
  const harness = createHarness({ tools: createDemoTools(ops), script: [...script, answerMessage("Done.")] });
  return { harness, ops };
}

async function paused(harness: ReturnType<typeof restartGraph>["harness"], message: string) {
  const config = { configurable: { thread_id: `t-${Math.random().toString(36).slice(2)}`, ...OPERATOR } };
  await harness.graph.invoke({ messages: [{ role: "user", content: message }] }, config);
  const pause = async () => pendingInterrupt(await harness.graph.getState(config));
  return { config, pause, first: (await pause()) as PauseValue };
}

describe("LangChain's human-in-the-loop shape (issue 25)", () => {
  it("fits LangChain's HITLRequest and HITLResponse types", () => {
    expectTypeOf<Pick<Required<PauseValue>, "actionRequests" | "reviewConfigs">>().toExtend<HITLRequest>();
    expectTypeOf<HITLResponse>().toExtend<HitlResponse>();
  });

  it("a pause carries actionRequests and reviewConfigs beside opspilot's own fields", async () => {
    const { harness } = restartGraph();
    const { first } = await paused(harness, "restart payment-service in prod");
    expect(first.actionRequests).toEqual([
      { name: "restart_service", args: RESTART, description: expect.stringContaining("high-risk") },
    ]);
    expect(first.reviewConfigs).toEqual([
      { actionName: "restart_service", allowedDecisions: ["approve", "edit", "reject"] },
    ]);
  });

  it("a { type: 'reject', message } resume rejects the call", async () => {
    const { harness, ops } = restartGraph();
    const { config, pause } = await paused(harness, "restart payment-service in prod");
    await harness.graph.invoke(
      new Command({ resume: { decisions: [{ type: "reject", message: "not during the freeze" }] } }),
      config,
    );
    expect(await pause()).toBeUndefined();
    expect(await ops.countActions({ action: "restart" })).toBe(0);
    const state = await harness.state(config.configurable.thread_id);
    expect(shape(state.messages)).toEqual([
      "human",
      "ai:restart_service",
      "tool:restart_service:rejected_by_user",
      "ai",
    ]);
    expect(String(state.messages[2]!.content)).toContain("not during the freeze");
  });

  it("a { type: 'approve' } resume approves the frozen args", async () => {
    const { harness, ops } = restartGraph();
    const { config, first } = await paused(harness, "restart payment-service in prod");
    await harness.graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(await ops.countActions({ action: "restart" })).toBe(1);
    const { decisions } = await harness.storage.threadRecords(config.configurable.thread_id);
    expect(decisions.map((row) => [row.action, row.args_hash_before, row.args_hash_after])).toEqual([
      ["approve", first.calls[0]!.argsHash, first.calls[0]!.argsHash],
    ]);
  });

  it("an edit keeps every check: the tool cannot change, the args must validate", async () => {
    const { harness, ops } = restartGraph();
    const { config, pause } = await paused(harness, "restart payment-service in prod");
    const edit = (name: string, args: Record<string, unknown>) => ({
      decisions: [{ type: "edit", editedAction: { name, args } }],
    });
    await harness.graph.invoke(
      new Command({ resume: edit("rollback_deploy", { service: "payment-service", environment: "prod" }) }),
      config,
    );
    expect((await pause())?.error).toContain("an edit may change the args of restart_service, not the tool");
    await harness.graph.invoke(
      new Command({ resume: edit("restart_service", { ...RESTART, environment: "moon" }) }),
      config,
    );
    expect((await pause())?.error).toContain("environment");
    await harness.graph.invoke(
      new Command({ resume: edit("restart_service", { ...RESTART, service: "order-service" }) }),
      config,
    );
    expect(await pause()).toBeUndefined();
    expect(await ops.countActions({ action: "restart" })).toBe(1);
  });

  it("one decision per waiting call, in order", () => {
    const calls = [
      { callId: "a", tool: "restart_service", args: {}, argsHash: "h1", risk: "high" as const },
      { callId: "b", tool: "scale_service", args: {}, argsHash: "h2", risk: "high" as const },
    ];
    expect(decisionsFromHitl({ decisions: [{ type: "approve" }] }, calls)).toContain("waits on 2 call(s)");
    expect(decisionsFromHitl({ decisions: [{ type: "approve" }, { type: "reject" }] }, calls)).toEqual([
      { callId: "a", action: "approve", argsHash: "h1" },
      { callId: "b", action: "reject" },
    ]);
    expect(decisionsFromHitl({ decisions: [{ type: "approve", args: {} }] }, calls.slice(0, 1))).toContain(
      "Malformed resume value",
    );
  });
});
