import { afterEach, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { accessReviewsOf } from "../../src/app/sources/kubernetes-source.js";
import { buildToolRegistry, connectToolSources } from "../../src/app/sources/tool-catalog.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import { consoleLogger, type Logger } from "../../src/service/observability/logger.js";
import type { ToolSource } from "../../src/tools/source.js";
import {
  READ_ONLY_RULES,
  REMEDIATION_RULES,
  startKubernetesStandin,
  type KubernetesStandin,
} from "../fixtures/kubernetes-standin.js";

const READS = [
  "kubernetes_workloads",
  "kubernetes_events",
  "kubernetes_pod_logs",
  "kubernetes_rollout_history",
  "kubernetes_nodes",
  "kubernetes_hpa",
];
const WRITES = ["kubernetes_rollout_restart", "kubernetes_scale", "kubernetes_rollout_undo", "kubernetes_delete_pod"];

let standin: KubernetesStandin | undefined;
let app: App | undefined;
let sources: ToolSource[] = [];
afterEach(async () => {
  await app?.close();
  await Promise.all(sources.map((source) => source.close()));
  standin?.setAccessReviewDelay(0);
  await standin?.close();
  [standin, app, sources] = [undefined, undefined, []];
});

const kubernetesConfig = (kubeconfig: string, timeoutMs?: number) =>
  parseConfig({ demo: false, toolsets: { kubernetes: { kubeconfig, namespaces: ["payments"], timeoutMs } } }, {});

/** Waits until `names()` equals `expected`, or fails with what it last was. */
async function until(names: () => string[], expected: string[], withinMs = 8_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && JSON.stringify(names()) !== JSON.stringify(expected))
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(names()).toEqual(expected);
}

describe("the Kubernetes access review on the background engine", () => {
  it("offers the writes once the credentials gain patch on deployments and takes them away when they lose it, without a restart", async () => {
    standin = await startKubernetesStandin({ roles: { ops: READ_ONLY_RULES } });
    app = createApp({
      env: loadEnv({ OPSPILOT_KUBERNETES_ACCESS_INTERVAL: "1s" }),
      dbPath: ":memory:",
      config: kubernetesConfig(standin.kubeconfig("ops")),
      logger: consoleLogger("silent"),
    });
    const kubernetesTools = () => app!.registry.names().filter((name) => name.startsWith("kubernetes_"));
    expect(app.jobs.jobs()).toContain("kubernetes-access");
    app.start();
    await until(kubernetesTools, READS);

    standin.setRoles("ops", REMEDIATION_RULES);
    await until(kubernetesTools, [...READS, ...WRITES]);

    standin.setRoles("ops", READ_ONLY_RULES);
    await until(kubernetesTools, READS);
  }, 30_000);

  it("registers no access job without toolsets.kubernetes", () => {
    app = createApp({ env: loadEnv({}), dbPath: ":memory:", logger: consoleLogger("silent") });
    expect(app.jobs.jobs()).not.toContain("kubernetes-access");
  });
});

describe("start-up and the first access review", () => {
  it("lists the tools the credentials may use as soon as start-up ends", async () => {
    standin = await startKubernetesStandin({ roles: { ops: REMEDIATION_RULES } });
    const config = kubernetesConfig(standin.kubeconfig("ops"));
    const logger = consoleLogger("silent");
    sources = await connectToolSources(config, logger);
    const registry = buildToolRegistry({ config, builtIn: [], sources, logger });
    expect(registry.names()).toEqual([...READS, ...WRITES]);
  });

  it("waits for a cluster that does not answer no longer than its time limit, then offers its tools once it answers", async () => {
    standin = await startKubernetesStandin({ roles: { ops: READ_ONLY_RULES } });
    standin.setAccessReviewDelay(8_000);
    const config = kubernetesConfig(standin.kubeconfig("ops"), 1_500);
    const logged: string[] = [];
    const logger: Logger = { error: (message) => void logged.push(message) };
    const startedAt = Date.now();
    sources = await connectToolSources(config, logger);
    // Start-up ended at the 1.5 s limit (plus the client's first load), long before the answers came.
    expect(Date.now() - startedAt).toBeLessThan(6_000);
    const registry = buildToolRegistry({ config, builtIn: [], sources, logger });
    expect(registry.names()).toEqual([]);
    expect(logged).toEqual(["Kubernetes: the first access review failed; only the tools it allowed are offered"]);

    standin.setAccessReviewDelay(0);
    const [review] = accessReviewsOf(sources);
    await review();
    expect(registry.names()).toEqual(READS);
  }, 20_000);

  it("keeps the last answers when a later review gets no answer, and says so", async () => {
    standin = await startKubernetesStandin({ roles: { ops: READ_ONLY_RULES } });
    const config = kubernetesConfig(standin.kubeconfig("ops"), 1_500);
    const logger = consoleLogger("silent");
    sources = await connectToolSources(config, logger);
    const registry = buildToolRegistry({ config, builtIn: [], sources, logger });
    expect(registry.names()).toEqual(READS);

    standin.setAccessReviewDelay(4_000);
    const [review] = accessReviewsOf(sources);
    await expect(review()).rejects.toThrow("The Kubernetes access review got no answer from default (11 unanswered)");
    expect(registry.names()).toEqual(READS);
  }, 20_000);
});
