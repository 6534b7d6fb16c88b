import type { KubernetesCluster } from "../../../config/toolsets-schema.js";
import type { ToolSource } from "../../source.js";
import type { ToolDefinition } from "../../types.js";
import { reviewAccess } from "./access.js";
import { createKubeClient } from "./client.js";
import type { KubeContext } from "./context.js";
import { createEventsTool } from "./reads/events-tool.js";
import { createHpaTool } from "./reads/hpa-tool.js";
import { createPodLogsTool } from "./reads/logs-tool.js";
import { TOOL_NEEDS } from "./needs.js";
import { createNodesTool } from "./reads/nodes-tool.js";
import { createRolloutHistoryTool } from "./reads/rollout-history-tool.js";
import { createWorkloadsTool } from "./reads/workloads-tool.js";
import { createWriteTools } from "./writes/write-tools.js";

/** The Kubernetes tools as a source whose list follows what the credentials may do. */
export interface KubernetesToolSource extends ToolSource {
  /** Every Kubernetes tool, offered or not. */
  allTools(): readonly ToolDefinition[];
  /**
   * Asks each cluster again (SelfSubjectAccessReviews) which tools its credentials may use and
   * tells listeners when the offered list changed; run at start, and by a scheduler later.
   */
  refreshAccess(): Promise<void>;
  /** The shared context (clients and access tables), for tests and the incident briefing. */
  context: KubeContext;
}

/** Builds the clients and tools of `toolsets.kubernetes`; nothing is offered until `refreshAccess` has run once. */
export function createKubernetesToolSource(config: KubernetesCluster | KubernetesCluster[]): KubernetesToolSource {
  const clusters = Array.isArray(config) ? config : [config];
  const context: KubeContext = { clients: clusters.map((cluster) => createKubeClient(cluster)), access: new Map() };
  const tools = [
    createWorkloadsTool(context),
    createEventsTool(context),
    createPodLogsTool(context),
    createRolloutHistoryTool(context),
    createNodesTool(context),
    createHpaTool(context),
    ...createWriteTools(context),
  ];
  const listeners: Array<() => void> = [];
  const offered = () =>
    tools.filter((tool) => [...context.access.values()].some((table) => (table.allowed[tool.name] ?? []).length > 0));
  return {
    context,
    allTools: () => tools,
    tools: offered,
    onChange: (listener) => listeners.push(listener),
    health: () => [],
    async refreshAccess() {
      const before = offered()
        .map((tool) => tool.name)
        .join(",");
      const tables = await Promise.all(context.clients.map((client) => reviewAccess(client, TOOL_NEEDS)));
      context.clients.forEach((client, index) => context.access.set(client.name, tables[index]));
      if (
        offered()
          .map((tool) => tool.name)
          .join(",") !== before
      )
        for (const listener of listeners) listener();
    },
    async close() {},
  };
}
