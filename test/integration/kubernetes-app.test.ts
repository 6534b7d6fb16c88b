import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/file.js";
import { buildToolRegistry, connectToolSources } from "../../src/app/sources/tool-catalog.js";
import { consoleLogger } from "../../src/service/observability/logger.js";
import { READ_ONLY_RULES, startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";

let standin: KubernetesStandin;
beforeAll(async () => {
  standin = await startKubernetesStandin({ roles: { reader: READ_ONLY_RULES } });
});
afterAll(() => standin.close());

describe("toolsets.kubernetes in the config file", () => {
  it("registers the tools the credentials may use, the kubeconfig path taken from ${VAR}", async () => {
    const config = parseConfig(
      { toolsets: { kubernetes: { kubeconfig: "${KUBECONFIG_PATH}", namespaces: ["payments"] } } },
      { KUBECONFIG_PATH: standin.kubeconfig("reader") },
    );
    const logger = consoleLogger("silent");
    const sources = await connectToolSources(config, logger);
    const registry = buildToolRegistry({ config, builtIn: [], sources, logger });
    expect(registry.names()).toEqual([
      "kubernetes_workloads",
      "kubernetes_events",
      "kubernetes_pod_logs",
      "kubernetes_rollout_history",
      "kubernetes_nodes",
      "kubernetes_hpa",
    ]);
    const reviews = standin.requests.filter((request) => request.path.endsWith("/selfsubjectaccessreviews"));
    // Eleven distinct questions for one namespace: each asked once, whichever tools share it.
    expect(reviews.length).toBe(11);
  });

  it("refuses a namespace that is not a Kubernetes name and a list of clusters without names", () => {
    expect(() => parseConfig({ toolsets: { kubernetes: { namespaces: ["Payments_1"] } } }, {})).toThrow(/namespace/);
    expect(() => parseConfig({ toolsets: { kubernetes: [{ namespaces: ["a"] }] } }, {})).toThrow(
      /toolsets\.kubernetes/,
    );
  });
});
