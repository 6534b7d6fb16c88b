/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects are JSON whose shape the tests assert */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_ONLY_RULES, startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { callTool, kubernetesSource } from "../fixtures/kubernetes-tools.js";
import type { KubernetesToolSource } from "../../src/tools/toolsets/kubernetes/index.js";

let standin: KubernetesStandin;
let source: KubernetesToolSource;

beforeAll(async () => {
  standin = await startKubernetesStandin({
    roles: { admin: [{ verbs: ["*"], resources: ["*"] }], reader: READ_ONLY_RULES },
  });
  source = await kubernetesSource(standin);
});
afterAll(() => standin.close());

describe("the Kubernetes reads against the stand-in", () => {
  it("digests the workloads and pods, troubled pods first, with last termination reasons and exit codes", async () => {
    const result = await callTool(source, "kubernetes_workloads", { namespace: "payments" });
    expect(result.workloads.map((w: any) => `${w.kind}/${w.name} ${w.ready}`)).toEqual([
      "Deployment/payment-service 0/3",
      "Deployment/checkout 9/10",
      "Deployment/ledger-api 1/2",
      "StatefulSet/ledger-db 3/3",
      "DaemonSet/node-exporter 2/2",
    ]);
    const byName = Object.fromEntries(result.pods.map((pod: any) => [pod.name, pod]));
    expect(byName["payment-service-7d4b9c6f8-x2k9p"]).toMatchObject({
      ready: "0/1",
      status: "CrashLoopBackOff",
      restarts: 7,
      lastTermination: "Error (exit code 1)",
      node: "node-a",
      age: "60m",
    });
    expect(byName["checkout-5f7d8c9b4-q5r8s"]).toMatchObject({
      status: "Running",
      lastTermination: "OOMKilled (exit code 137)",
      restarts: 3,
    });
    expect(byName["ledger-api-8b6c4d2f1-z1y2x"]).toMatchObject({ status: "ImagePullBackOff", restarts: 0 });
    expect(result.pods.at(-1).name).toBe("checkout-5f7d8c9b4-q5r8s");
  });

  it("narrows to one workload and its pods", async () => {
    const result = await callTool(source, "kubernetes_workloads", {
      namespace: "payments",
      workload: "payment-service",
    });
    expect(result.workloads).toHaveLength(1);
    expect(result.workloads[0]).toMatchObject({ revision: "42", images: ["registry.local/payments:1.8.3"] });
    expect(result.pods.map((pod: any) => pod.name).sort()).toEqual([
      "payment-service-7d4b9c6f8-m4q7z",
      "payment-service-7d4b9c6f8-t8w3n",
      "payment-service-7d4b9c6f8-x2k9p",
    ]);
  });

  it("returns events newest first with their counts, and one object's events alone", async () => {
    const all = await callTool(source, "kubernetes_events", { namespace: "payments" });
    expect(all.events[0]).toMatchObject({
      reason: "Failed",
      object: "Pod/ledger-api-8b6c4d2f1-z1y2x",
      count: 12,
      type: "Warning",
    });
    const oom = await callTool(source, "kubernetes_events", {
      namespace: "payments",
      name: "checkout-5f7d8c9b4-q5r8s",
    });
    expect(oom.events).toEqual([
      {
        type: "Warning",
        reason: "OOMKilling",
        object: "Pod/checkout-5f7d8c9b4-q5r8s",
        message: "Memory cgroup out of memory: Killed process 4242 (java)",
        count: 3,
        lastSeen: expect.stringMatching(/^4\ds ago$/),
      },
    ]);
  });

  it("reads the previous container's logs, grouped by pattern when long, and filters lines", async () => {
    const logs = await callTool(source, "kubernetes_pod_logs", {
      namespace: "payments",
      pod: "payment-service-7d4b9c6f8-x2k9p",
      previous: true,
    });
    expect(logs.lineCount).toBe(42);
    expect(logs.lines.at(-1)).toBe("FATAL config key PAYMENTS_GATEWAY_URL is missing");
    const last = standin.requests.at(-1)!;
    expect(last.query).toMatchObject({ previous: "true", tailLines: "200" });
    const filtered = await callTool(source, "kubernetes_pod_logs", {
      namespace: "payments",
      pod: "payment-service-7d4b9c6f8-x2k9p",
      previous: true,
      filter: "fatal",
    });
    expect(filtered.lines).toEqual(["FATAL config key PAYMENTS_GATEWAY_URL is missing"]);
  });

  it("states the cut when long logs are grouped by pattern", async () => {
    const { groupLines } = await import("../../src/tools/toolsets/kubernetes/reads/log-patterns.js");
    const lines = Array.from({ length: 80 }, (_, i) => `timeout after ${i}ms`);
    expect(groupLines(lines)).toEqual([{ pattern: "timeout after <n>ms", count: 80, example: "timeout after 79ms" }]);
  });

  it("lists the rollout history newest first with images and change causes", async () => {
    const history = await callTool(source, "kubernetes_rollout_history", {
      namespace: "payments",
      deployment: "payment-service",
    });
    expect(
      history.revisions.map((r: any) => [r.revision, r.images[0], r.changeCause ?? null, r.current, r.age]),
    ).toEqual([
      [42, "registry.local/payments:1.8.3", "deploy 1.8.3", true, "12m"],
      [41, "registry.local/payments:1.8.2", null, false, "3d"],
    ]);
  });

  it("shows nodes under pressure first and says the metrics API does not answer", async () => {
    const nodes = await callTool(source, "kubernetes_nodes", {});
    expect(nodes.nodes[0]).toMatchObject({ name: "node-b", ready: true, pressure: ["MemoryPressure"] });
    expect(nodes.usageNote).toMatch(/metrics API .* does not answer/);
  });

  it("shows an autoscaler at its maximum", async () => {
    const hpa = await callTool(source, "kubernetes_hpa", { namespace: "payments" });
    expect(hpa.autoscalers[0]).toMatchObject({
      name: "checkout",
      target: "Deployment/checkout",
      currentReplicas: 10,
      maxReplicas: 10,
      atMaximum: true,
    });
    expect(hpa.autoscalers[0].conditions[0]).toMatch(/^ScalingLimited=True: TooManyReplicas/);
  });

  it("refuses a namespace outside the allowed list and a malformed name before any request", async () => {
    const tool = source.allTools().find((each) => each.name === "kubernetes_pod_logs")!;
    const count = standin.requests.length;
    expect(tool.schema.safeParse({ namespace: "kube-system", pod: "x" }).success).toBe(false);
    expect(tool.schema.safeParse({ namespace: "payments", pod: "../../secrets" }).success).toBe(false);
    expect(standin.requests.length).toBe(count);
  });
});
