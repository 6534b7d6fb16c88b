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
   * tells listeners when the offered list changed; run at start, then by the `kubernetes-access`
   * job. A cluster that leaves questions unanswered keeps its last answers (at the first review:
   * only the tools it clearly allowed), and the call rejects saying which cluster.
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
  const offeredNames = () =>
    offered()
      .map((tool) => tool.name)
      .join(",");
  return {
    context,
    allTools: () => tools,
    tools: offered,
    onChange: (listener) => listeners.push(listener),
    health: () => [],
    async refreshAccess() {
      const before = offeredNames();
      const tables = await Promise.all(context.clients.map((client) => reviewAccess(client, TOOL_NEEDS)));
      const unanswered: string[] = [];
      context.clients.forEach((client, index) => {
        const table = tables[index];
        // A cluster that could not answer keeps its last answers: a network blip must not hide its tools.
        if (table.unanswered > 0) unanswered.push(`${client.name} (${table.unanswered} unanswered)`);
        if (table.unanswered === 0 || !context.access.has(client.name)) context.access.set(client.name, table);
      });
      if (offeredNames() !== before) for (const listener of listeners) listener();
      if (unanswered.length > 0)
        throw new Error(`The Kubernetes access review got no answer from ${unanswered.join(", ")}`);
    },
    async close() {},
  };
}
