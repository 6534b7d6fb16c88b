/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects are JSON whose shape the tests assert */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Event, Node, Pod } from "kubernetes-models/v1";
import { DaemonSet, Deployment, ReplicaSet, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { defaultScenario } from "../fixtures/kubernetes-scenario.js";

const run = promisify(execFile);
const models: Record<string, new (data: any) => { validate(): void }> = {
  Pod,
  Event,
  Node,
  Deployment,
  ReplicaSet,
  StatefulSet,
  DaemonSet,
  HorizontalPodAutoscaler,
};

let standin: KubernetesStandin;
let kubectl: (...args: string[]) => Promise<string>;

beforeAll(async () => {
  standin = await startKubernetesStandin();
  const kubeconfig = standin.kubeconfig("admin");
  // The stand-in serves from this process: kubectl must run without blocking its event loop.
  kubectl = async (...args) =>
    (await run("kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 })).stdout;
});
afterAll(() => standin.close());

describe("the Kubernetes stand-in", () => {
  it("serves only objects that pass Kubernetes' JSON schemas (kubernetes-models)", () => {
    const { objects } = defaultScenario();
    for (const object of objects)
      expect(() => new models[object.kind](object).validate(), `${object.kind}/${object.metadata.name}`).not.toThrow();
    expect(new Set(objects.map((object) => object.kind))).toEqual(new Set(Object.keys(models)));
  });

  it("is read by the real kubectl: get pods, describe pod, logs --previous and rollout history", async () => {
    expect(await kubectl("get", "pods", "-o", "name")).toBe(
      [
        "payment-service-7d4b9c6f8-x2k9p",
        "payment-service-7d4b9c6f8-m4q7z",
        "payment-service-7d4b9c6f8-t8w3n",
        "checkout-5f7d8c9b4-q5r8s",
        "ledger-api-8b6c4d2f1-z1y2x",
      ]
        .map((name) => `pod/${name}\n`)
        .join(""),
    );
    const describePod = await kubectl("describe", "pod", "checkout-5f7d8c9b4-q5r8s");
    expect(describePod).toMatch(/Last State:\s+Terminated\n\s+Reason:\s+OOMKilled\n\s+Exit Code:\s+137/);
    expect(describePod).toMatch(
      /Warning\s+OOMKilling\s+\S+ \(x3 over \S+\)\s+kernel-monitor\s+Memory cgroup out of memory/,
    );
    expect(await kubectl("logs", "--previous", "payment-service-7d4b9c6f8-x2k9p", "--tail=1")).toBe(
      "FATAL config key PAYMENTS_GATEWAY_URL is missing\n",
    );
    expect(await kubectl("rollout", "history", "deployment/payment-service")).toMatch(
      /REVISION\s+CHANGE-CAUSE\n41\s+<none>\n42\s+deploy 1.8.3/,
    );
  });

  it("prints lists as the API server does when kubectl asks for a Table: get pods, deployments and nodes", async () => {
    const pods = (await kubectl("get", "pods")).split("\n");
    expect(pods[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(pods[1]).toMatch(/^payment-service-7d4b9c6f8-x2k9p\s+0\/1\s+CrashLoopBackOff\s+7 \(\d+s ago\)\s+60m$/);
    expect(pods[4]).toMatch(/^checkout-5f7d8c9b4-q5r8s\s+1\/1\s+Running\s+3 \(\d+s ago\)\s+60m$/);
    expect(pods[5]).toMatch(/^ledger-api-8b6c4d2f1-z1y2x\s+0\/1\s+ImagePullBackOff\s+0\s+60m$/);
    expect(await kubectl("get", "deployments,nodes")).toMatch(
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps\/payment-service\s+0\/3\s+3\s+0\s+30d\n[^]*\nNAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\nnode\/node-a\s+Ready\s+<none>\s+90d\s+v1\.32\.0\n/,
    );
  });

  it("answers kubectl's server-side dry runs of scale and of the restart annotation without changing anything", async () => {
    expect(await kubectl("scale", "deployment/payment-service", "--replicas=5", "--dry-run=server")).toBe(
      "deployment.apps/payment-service scaled (server dry run)\n",
    );
    const restart = JSON.stringify({
      spec: {
        template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-12-05T10:00:00Z" } } },
      },
    });
    expect(
      await kubectl(
        "patch",
        "deployment/payment-service",
        "--dry-run=server",
        "-p",
        restart,
        "-o",
        "jsonpath={.spec.template.metadata.annotations}",
      ),
    ).toBe('{"kubectl.kubernetes.io/restartedAt":"2026-12-05T10:00:00Z"}');
    const patches = standin.requests.filter((request) => request.method === "PATCH");
    expect(patches.map((request) => [request.path, request.query.dryRun])).toEqual([
      ["/apis/apps/v1/namespaces/payments/deployments/payment-service/scale", "All"],
      ["/apis/apps/v1/namespaces/payments/deployments/payment-service", "All"],
    ]);
    const stored = standin.get("deployments", "payments", "payment-service")!;
    expect(stored.spec.replicas).toBe(3);
    expect(stored.spec.template.metadata.annotations).toBeUndefined();
  });

  it("answers 403 to a token its role table does not allow, as kubectl shows it", async () => {
    const denied = await startKubernetesStandin({
      roles: { reader: [{ verbs: ["get", "list"], resources: ["deployments"] }] },
    });
    try {
      const config = denied.kubeconfig("reader");
      const failure = await run("kubectl", [
        "--kubeconfig",
        config,
        "scale",
        "deployment/payment-service",
        "--replicas=0",
      ]).catch((error: { stderr: string }) => error.stderr);
      expect(failure).toMatch(
        /cannot patch resource "deployments\/scale" in API group "apps" in the namespace "payments"/,
      );
    } finally {
      await denied.close();
    }
  });
});
