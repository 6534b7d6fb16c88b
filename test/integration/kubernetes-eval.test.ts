import { describe, expect, it } from "vitest";
import { loadScenarios, parseScenarios } from "../../src/eval/load-scenarios.js";
import { runEval } from "../../src/eval/run-eval.js";

const checksOf = (result: Awaited<ReturnType<typeof runEval>>, id: string) =>
  Object.fromEntries(
    result.report.scenarios.find((scenario) => scenario.id === id)!.checks.map((check) => [check.name, check.passed]),
  );

describe("eval scenarios against the Kubernetes stand-in", () => {
  it("runs each shipped situation with its script on the demo model: the cause is in the answer and in an observation, and no write ran unapproved", async () => {
    const result = await runEval({
      scenarios: loadScenarios("eval/scenarios/10-kubernetes.yaml"),
      variables: { OPSPILOT_LOG_LEVEL: "silent" },
      model: "demo",
      repeat: 1,
      concurrency: 5,
    });
    expect(result.report.scenarios.map((scenario) => [scenario.id, scenario.score])).toEqual([
      ["kubernetes-crashloop-bad-rollout-undo", 1],
      ["kubernetes-oomkilled-checkout", 1],
      ["kubernetes-imagepullbackoff-restart-rejected", 1],
      ["kubernetes-hpa-at-maximum", 1],
      ["kubernetes-node-memory-pressure", 1],
    ]);
    for (const scenario of result.report.scenarios) {
      expect(checksOf(result, scenario.id)).toMatchObject({ evidence: true, invariants: true });
    }
    const undo = result.runs.get("kubernetes-crashloop-bad-rollout-undo")![0].trace;
    const undone = undo.events.find(
      (event) => event.type === "tool_result" && event.tool === "kubernetes_rollout_undo",
    );
    expect(undone).toMatchObject({ ok: true });
    expect(Object.values(undo.decisions).map((decision) => [decision.tool, decision.action])).toEqual([
      ["kubernetes_rollout_undo", "approve"],
    ]);
    const rejected = result.runs.get("kubernetes-imagepullbackoff-restart-rejected")![0].trace;
    const restart = rejected.events.find(
      (event) => event.type === "tool_result" && event.tool === "kubernetes_rollout_restart",
    );
    expect(restart).toMatchObject({ ok: false, errorCode: "rejected_by_user" });
  }, 120_000);

  it("fails a script whose answer names a cause no tool showed, and rejects a write it did not expect", async () => {
    const scenarios = parseScenarios(
      [
        "- id: unsupported-cause",
        "  question: Why does payment-service crash?",
        "  standin: { kubernetes: default }",
        "  script:",
        "    - calls: [{ tool: kubernetes_hpa, args: { namespace: payments } }]",
        "    - answer: The config key PAYMENTS_GATEWAY_URL is missing.",
        "  expect: { evidence: [PAYMENTS_GATEWAY_URL] }",
        "- id: unexpected-scale",
        "  question: Why does payment-service crash?",
        "  standin: { kubernetes: default }",
        "  script:",
        "    - calls: [{ tool: kubernetes_scale, args: { namespace: payments, deployment: payment-service, replicas: 0 } }]",
        "    - answer: I did not scale it.",
      ].join("\n"),
      "inline.yaml",
    );
    const result = await runEval({
      scenarios,
      variables: { OPSPILOT_LOG_LEVEL: "silent" },
      model: "demo",
      repeat: 1,
      concurrency: 2,
    });
    expect(checksOf(result, "unsupported-cause")).toMatchObject({ evidence: false, invariants: true });
    expect(checksOf(result, "unexpected-scale")).toMatchObject({ pauses: false, invariants: true });
    const scale = result.runs
      .get("unexpected-scale")![0]
      .trace.events.find((event) => event.type === "tool_result" && event.tool === "kubernetes_scale");
    expect(scale).toMatchObject({ ok: false, errorCode: "rejected_by_user" });
  }, 120_000);
});
