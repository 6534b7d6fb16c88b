import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentStateType } from "../../src/graph/state.js";
import type { IncidentView } from "../../src/service/incidents/incidents.js";
import {
  ALERT_TOKEN,
  firingFixture,
  startAlertServer,
  tempDirectory,
  type AlertServer,
} from "../fixtures/alert-server.js";
import { READ_ONLY_RULES, startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { answerMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";

describe("an Alertmanager alert with namespace and deployment labels, against the Kubernetes stand-in", () => {
  const directory = tempDirectory();
  let standin: KubernetesStandin;
  let server: AlertServer;

  beforeAll(async () => {
    standin = await startKubernetesStandin({ roles: { reader: READ_ONLY_RULES } });
    writeFileSync(
      join(directory.path, "opspilot.config.json"),
      JSON.stringify({
        toolsets: { kubernetes: { kubeconfig: standin.kubeconfig("reader"), namespaces: ["payments"] } },
      }),
    );
    server = await startAlertServer(
      directory.path,
      { OPSPILOT_CONFIG: join(directory.path, "opspilot.config.json") },
      { model: new ScriptedChatModel({ script: [answerMessage("payment-service crashes since revision 42.")] }) },
    );
    // The Kubernetes tools are offered once the first access review answers.
    const deadline = Date.now() + 20_000;
    while (!server.app.registry.names().includes("kubernetes_workloads")) {
      if (Date.now() > deadline) throw new Error("the Kubernetes tools were never offered");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(async () => {
    await server?.stop();
    await standin?.close();
    directory.remove();
  });

  it("opens an incident whose first message names the workload's pods and its recent rollout", async () => {
    const alert = firingFixture() as { alerts: Array<Record<string, unknown>>; commonLabels: Record<string, string> };
    alert.commonLabels = { ...alert.commonLabels, namespace: "payments", deployment: "payment-service" };
    alert.alerts[0] = { ...alert.alerts[0], labels: alert.commonLabels, startsAt: new Date().toISOString() };
    const response = await fetch(`${server.url}/api/alerts/alertmanager`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALERT_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(alert),
    });
    expect(response.status).toBe(202);
    await server.intake.worker.kick();
    await server.intake.worker.idle();
    const incidents = (
      (await (await server.operator.request("GET", "/api/incidents")).json()) as { incidents: IncidentView[] }
    ).incidents;
    expect(incidents).toHaveLength(1);
    const messages = (
      (await server.app.graph.getState({ configurable: { thread_id: incidents[0]!.threadId } }))
        .values as AgentStateType
    ).messages;
    const first = String(messages[0]!.content);
    expect(first).toContain(
      [
        "Kubernetes (payments, payment-service), read when the incident opened:",
        "Deployment payment-service: 0/3 ready, images registry.local/payments:1.8.3, revision 42",
        "- payment-service-7d4b9c6f8-x2k9p: CrashLoopBackOff, 0/1 ready, 7 restarts, last Error (exit code 1), node node-a",
        "- payment-service-7d4b9c6f8-m4q7z: CrashLoopBackOff, 0/1 ready, 7 restarts, last Error (exit code 1), node node-b",
        "- payment-service-7d4b9c6f8-t8w3n: CrashLoopBackOff, 0/1 ready, 7 restarts, last Error (exit code 1), node node-a",
        "payment-service rolled out revision 42, image registry.local/payments:1.8.3, 12m before this incident opened (deploy 1.8.3)",
      ].join("\n"),
    );
    const reads = standin.requests.filter((request) => request.method === "GET").map((request) => request.path);
    expect(reads).toContain("/api/v1/namespaces/payments/pods");
    expect(reads).toContain("/apis/apps/v1/namespaces/payments/replicasets");
  });
});
