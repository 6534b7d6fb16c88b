import { describe, expect, it } from "vitest";
import { openEvalApp } from "../../../src/eval/eval-app.js";
import { parseScenarios } from "../../../src/eval/load-scenarios.js";
import { runScenario } from "../../../src/eval/run-scenario.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../fixtures/scripted-model.js";

const restart = parseScenarios(
  `id: restart
question: Restart the payment service in prod
pauses: [{ type: confirm_risky, tool: restart_service, action: approve }]
`,
  "restart.yaml",
)[0]!.scenario;

const failing = parseScenarios(
  `id: failing
question: Restart the payment service in prod
faults: [{ tool: restart_service, errorCode: internal }]
pauses: [{ type: confirm_risky, tool: restart_service, action: approve }]
`,
  "failing.yaml",
)[0]!.scenario;

const restartCall = () =>
  callsMessage([{ name: "restart_service", args: { service: "payment-service", environment: "prod" } }]);

describe("each scenario's own demo estate", () => {
  it("gives every scenario a fresh copy of the dataset and plants faults on its thread only", async () => {
    const chatModel = new ScriptedChatModel({
      script: [
        restartCall(),
        answerMessage("done"),
        restartCall(),
        answerMessage("done"),
        restartCall(),
        answerMessage("failed"),
      ],
    });
    const opened = await openEvalApp({ variables: {}, chatModel, faults: failing.faults });
    try {
      const target = { runtime: opened.app.runtime, tools: opened.tools };
      const first = await runScenario(target, restart);
      const second = await runScenario(target, restart);
      const third = await runScenario(target, failing);
      const observation = (trace: typeof first) =>
        JSON.parse(trace.messages.find((message) => message.role === "tool")!.content) as {
          ok: boolean;
          data?: { restartCount: number; statusBefore: string };
          errorCode?: string;
        };
      // The second restart does not see the first: both are the dataset's first restart.
      expect(observation(first).data).toMatchObject({ restartCount: 1, statusBefore: "degraded" });
      expect(observation(second).data).toMatchObject({ restartCount: 1, statusBefore: "degraded" });
      expect(observation(third)).toMatchObject({ ok: false, errorCode: "internal" });
      // The app's own dataset is untouched.
      expect(await opened.app.ops.countActions()).toBe(0);
    } finally {
      await opened.close();
    }
  });
});
