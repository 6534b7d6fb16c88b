import { z } from "zod";
import { CustomObjectsApi, type V1Node } from "@kubernetes/client-node";
import { defineTool, type ToolDefinition } from "../../../types.js";
import { request, type KubeClient } from "../client.js";
import { capped, clientFor, clusterFields, type KubeContext } from "../context.js";

const PRESSURES = ["MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"];

function nodeView(node: V1Node) {
  const conditions = node.status?.conditions ?? [];
  const ready = conditions.find((condition) => condition.type === "Ready")?.status === "True";
  return {
    name: node.metadata?.name ?? "",
    ready,
    pressure: conditions
      .filter((condition) => PRESSURES.includes(condition.type) && condition.status === "True")
      .map((condition) => condition.type),
    unschedulable: node.spec?.unschedulable === true,
    allocatable: { cpu: node.status?.allocatable?.cpu, memory: node.status?.allocatable?.memory },
  };
}

/** Node usage from the metrics API, or why there is none. */
async function usageOf(client: KubeClient): Promise<{ usage?: Record<string, unknown>; note?: string }> {
  try {
    const metrics = (await client.config.makeApiClient(CustomObjectsApi).listClusterCustomObject({
      group: "metrics.k8s.io",
      version: "v1beta1",
      plural: "nodes",
    })) as { items?: Array<{ metadata: { name: string }; usage: Record<string, string> }> };
    return { usage: Object.fromEntries((metrics.items ?? []).map((item) => [item.metadata.name, item.usage])) };
  } catch {
    return { note: "The metrics API (metrics.k8s.io, metrics-server) does not answer: no CPU or memory usage." };
  }
}

/** `kubernetes_nodes`: the nodes, whether ready, their pressure conditions and, when the metrics API answers, usage. */
export function createNodesTool(context: KubeContext): ToolDefinition {
  return defineTool({
    name: "kubernetes_nodes",
    description:
      "List the cluster's nodes: ready or not, pressure conditions (MemoryPressure, DiskPressure, PIDPressure), " +
      "unschedulable, allocatable CPU and memory, and current usage when the metrics API answers (it says so when " +
      "not). Use it when pods are evicted, OOMKilled or Pending, or several workloads fail on the same node.",
    schema: z.object({ ...clusterFields(context) }),
    readOnly: true,
    risk: "low",
    timeoutMs: context.clients[0].timeoutMs * 2,
    summarize(result) {
      const view = result as { nodes: Array<{ name: string; pressure: string[]; ready: boolean }> };
      return view.nodes
        .filter((node) => !node.ready || node.pressure.length)
        .map((node) => `${node.name}: ${node.pressure.join(",") || "NotReady"}`);
    },
    async run(args) {
      const client = clientFor(context, "kubernetes_nodes", args as { cluster?: string });
      const [list, usage] = await Promise.all([
        request("listing nodes", () => client.core.listNode()),
        usageOf(client),
      ]);
      const nodes = list.items
        .map(nodeView)
        .sort((a, b) => b.pressure.length - a.pressure.length || Number(a.ready) - Number(b.ready));
      const shown = capped(nodes, 50, "nodes (troubled first)");
      return {
        cluster: client.name,
        nodes: shown.items.map((node) => ({
          ...node,
          ...(usage.usage?.[node.name] ? { usage: usage.usage[node.name] } : {}),
        })),
        ...(usage.note ? { usageNote: usage.note } : {}),
        ...(shown.cut ? { cut: shown.cut } : {}),
      };
    },
  });
}
