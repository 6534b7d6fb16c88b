import { describe, expect, it } from "vitest";
import { describePause } from "../../src/cli/pause/pause.js";
import { createStyle } from "../../src/cli/output/style.js";
import { pauseText, type PauseNotice } from "../../src/service/notices/pause-webhook-body.js";
import { pauseActionsBlock } from "../../src/service/slack/buttons.js";
import { PauseValueSchema, type PauseValue } from "../../src/contracts/pause/pause.js";

const pause: PauseValue = {
  interruptId: "int-1",
  interruptType: "confirm_risky",
  reason: "kubernetes_scale is high risk.",
  calls: [
    {
      callId: "scale",
      tool: "kubernetes_scale",
      args: { namespace: "payments", deployment: "checkout", replicas: 5 },
      argsHash: "h1",
      risk: "high",
      preview: { changes: [{ path: "spec.replicas", from: 3, to: 5 }] },
    },
  ],
};

describe("a write's dry run on the surfaces that show a pause", () => {
  it("keeps the preview in the interrupt value the API serves", () => {
    expect(PauseValueSchema.parse(pause).calls[0].preview).toEqual({
      changes: [{ path: "spec.replicas", from: 3, to: 5 }],
    });
  });

  it("prints the changed fields under the call in the CLI", () => {
    const lines = describePause(pause, { style: createStyle(false), tagOf: () => "[1]" });
    expect(lines.slice(2)).toEqual(["      dry run, will change:", "        spec.replicas: 3 → 5"]);
  });

  it("writes the changed fields into the Slack notice and its approval dialog", () => {
    const notice = {
      threadId: "t",
      runId: "r",
      interruptId: "int-1",
      interruptType: "confirm_risky",
      reason: pause.reason,
      tools: ["kubernetes_scale"],
      calls: pause.calls,
      link: "http://127.0.0.1/t",
    } as unknown as PauseNotice;
    expect(pauseText(notice)).toContain(
      `• kubernetes_scale {"namespace":"payments","deployment":"checkout","replicas":5}\n  dry run, will change:\n    spec.replicas: 3 → 5`,
    );
    const block = pauseActionsBlock({
      threadId: "t",
      interruptId: "int-1",
      link: "http://127.0.0.1/t",
      calls: pause.calls,
    }) as { elements: Array<{ confirm?: { text: { text: string } } }> };
    expect(block.elements[0].confirm!.text.text).toBe(
      "kubernetes_scale will run with the arguments shown above. It changes spec.replicas: 3 → 5.",
    );
  });
});
