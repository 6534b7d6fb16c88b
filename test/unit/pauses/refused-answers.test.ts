import BetterSqlite3 from "better-sqlite3";
import { Command } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import { pendingInterrupt } from "../../../src/graph/pause.js";
import { createDemoTools, OpsStore } from "../../../src/demo/index.js";
import { createHarness, shape } from "../../fixtures/harness.js";

const RESTART = { service: "payment-service", environment: "prod", reason: "PAY-5031 storm" };
const OPERATOR = { userId: "olga", role: "operator" };
const VIEWER = { userId: "vic", role: "viewer" };

/**
 * The graph driven directly (as Studio and the LangGraph server drive it), so nothing checks an
 * answer before `review_calls` sees it: a refused answer must never be applied by a later resume.
 */
function restartGraph() {
  const ops = new OpsStore(new BetterSqlite3(":memory:"));
  const harness = createHarness({
    tools: createDemoTools(ops),
    script: [callsMessage([{ name: "restart_service", args: RESTART, id: "w1" }]), answerMessage("Left it alone.")],
  });
  const restarts = () => ops.countActions({ action: "restart" });
  return { harness, restarts };
}

async function pausedThread(harness: ReturnType<typeof restartGraph>["harness"]) {
  const threadId = `t-${Math.random().toString(36).slice(2)}`;
  const config = (user: typeof OPERATOR) => ({ configurable: { thread_id: threadId, ...user } });
  await harness.graph.invoke(
    { messages: [{ role: "user", content: "restart payment-service in prod" }] },
    config(OPERATOR),
  );
  const pause = async () => pendingInterrupt(await harness.graph.getState(config(OPERATOR)));
  return { threadId, config, pause };
}

describe("a refused answer is decided once (issue 25)", () => {
  for (const refused of ["approve", "edit"] as const) {
    it(`a viewer's ${refused} is refused, and an operator's reject that follows runs nothing`, async () => {
      const { harness, restarts } = restartGraph();
      const { threadId, config, pause } = await pausedThread(harness);
      const first = (await pause()) as PauseValue;
      expect(first).toMatchObject({ interruptType: "confirm_risky", calls: [{ callId: "w1" }] });
      const viewerAnswer =
        refused === "approve"
          ? { callId: "w1", action: "approve", argsHash: first.calls[0]!.argsHash }
          : { callId: "w1", action: "edit", args: { ...RESTART, service: "order-service" } };
      await harness.graph.invoke(new Command({ resume: { decisions: [viewerAnswer] } }), config(VIEWER));
      const again = await pause();
      expect(again?.error).toContain("Your role (viewer) is not allowed to use restart_service");
      expect(again?.interruptId).toBe(first.interruptId);

      await harness.graph.invoke(
        new Command({ resume: { decisions: [{ callId: "w1", action: "reject", message: "not now" }] } }),
        config(OPERATOR),
      );
      expect(await restarts()).toBe(0);
      const state = await harness.state(threadId);
      expect(shape(state.messages)).toEqual([
        "human",
        "ai:restart_service",
        "tool:restart_service:rejected_by_user",
        "ai",
      ]);
      const { decisions } = await harness.storage.threadRecords(threadId);
      expect(decisions.map((row) => [row.call_id, row.action, row.user_id, row.role])).toEqual([
        ["w1", "reject", "olga", "operator"],
      ]);
    });
  }

  it("a refusal that does not depend on the answerer (a wrong argsHash) is not applied later either", async () => {
    const { harness, restarts } = restartGraph();
    const { config, pause } = await pausedThread(harness);
    await harness.graph.invoke(
      new Command({ resume: { decisions: [{ callId: "w1", action: "approve", argsHash: "stale" }] } }),
      config(OPERATOR),
    );
    const again = (await pause()) as PauseValue;
    expect(again.error).toContain("argsHash mismatch");
    await harness.graph.invoke(
      new Command({ resume: { decisions: [{ callId: "w1", action: "approve", argsHash: again.calls[0]!.argsHash }] } }),
      config(OPERATOR),
    );
    expect(await restarts()).toBe(1);
    expect(await pause()).toBeUndefined();
  });
});
