import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubernetesSection } from "../../src/service/incidents/kubernetes-briefing.js";
import { firstMessage } from "../../src/service/incidents/briefing.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { kubernetesSource } from "../fixtures/kubernetes-tools.js";

let standin: KubernetesStandin;
let registry: ToolRegistry;
beforeAll(async () => {
  standin = await startKubernetesStandin();
  registry = new ToolRegistry((await kubernetesSource(standin)).tools());
});
afterAll(() => standin.close());

describe("an alert's Kubernetes labels in the incident's first message", () => {
  it("names the deployment's pods and its rollout of the last hours", async () => {
    const sections = await kubernetesSection(registry, {
      alertname: "PaymentErrors",
      namespace: "payments",
      deployment: "payment-service",
    });
    expect(firstMessage("[FIRING] PaymentErrors", sections)).toBe(
      [
        "[FIRING] PaymentErrors",
        "",
        "Kubernetes (payments, payment-service), read when the incident opened:",
        "Deployment payment-service: 0/3 ready, images registry.local/payments:1.8.3, revision 42",
        "- payment-service-7d4b9c6f8-x2k9p: CrashLoopBackOff, 0/1 ready, 7 restarts, last Error (exit code 1), node node-a",
        "- payment-service-7d4b9c6f8-m4q7z: CrashLoopBackOff, 0/1 ready, 7 restarts, last Error (exit code 1), node node-b",
        "- payment-service-7d4b9c6f8-t8w3n: CrashLoopBackOff, 0/1 ready, 7 restarts, last Error (exit code 1), node node-a",
        "payment-service rolled out revision 42, image registry.local/payments:1.8.3, 12m before this incident opened (deploy 1.8.3)",
      ].join("\n"),
    );
  });

  it("adds nothing when the labels name no workload or no Kubernetes tool is offered", async () => {
    expect(await kubernetesSection(registry, { alertname: "X", namespace: "payments" })).toEqual([]);
    expect(
      await kubernetesSection(new ToolRegistry([]), { namespace: "payments", deployment: "payment-service" }),
    ).toEqual([]);
  });
});
