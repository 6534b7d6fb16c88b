import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../../types.js";
import { request } from "../client.js";
import { capped, clientFor, targetFields, type KubeContext } from "../context.js";
import { podDigest, troubledFirst, workloadDigest, type WorkloadDigest } from "./digest.js";
import { objectName } from "../names.js";

const MAX_PODS = 40;

/** `kubernetes_workloads`: deployments, stateful sets, daemon sets and pods of a namespace with a status digest. */
export function createWorkloadsTool(context: KubeContext): ToolDefinition {
  return defineTool({
    name: "kubernetes_workloads",
    description:
      "List a namespace's workloads (deployments, statefulsets, daemonsets: ready/desired, up to date, images, " +
      "revision) and pods (ready, status such as CrashLoopBackOff or ImagePullBackOff, restarts, the last " +
      "termination reason and exit code such as OOMKilled (exit code 137), node, age). Use it first when a " +
      "service on Kubernetes misbehaves; give `workload` to see one workload and only its pods. Troubled pods " +
      "come first; long lists are cut with the cut stated.",
    schema: z.object({
      ...targetFields(context),
      workload: objectName.optional().describe("A deployment, statefulset or daemonset name: only it and its pods."),
    }),
    readOnly: true,
    risk: "low",
    timeoutMs: context.clients[0].timeoutMs,
    summarize(result) {
      const view = result as { workloads: WorkloadDigest[]; pods: Array<{ name: string; status: string }> };
      const bad = view.pods.filter((pod) => pod.status !== "Running");
      return [`${view.workloads.length} workloads, ${view.pods.length} pods, ${bad.length} not running`];
    },
    async run(args) {
      const client = clientFor(context, "kubernetes_workloads", args);
      const { namespace } = args;
      const [deployments, statefulSets, daemonSets] = await Promise.all([
        request("listing deployments", () => client.apps.listNamespacedDeployment({ namespace })),
        request("listing statefulsets", () => client.apps.listNamespacedStatefulSet({ namespace })),
        request("listing daemonsets", () => client.apps.listNamespacedDaemonSet({ namespace })),
      ]);
      const all = [
        ...deployments.items.map((item) => ({ kind: "Deployment" as const, item })),
        ...statefulSets.items.map((item) => ({ kind: "StatefulSet" as const, item })),
        ...daemonSets.items.map((item) => ({ kind: "DaemonSet" as const, item })),
      ].filter(({ item }) => args.workload === undefined || item.metadata?.name === args.workload);
      if (args.workload !== undefined && all.length === 0) {
        return {
          cluster: client.name,
          namespace,
          workloads: [],
          pods: [],
          note: `No workload named ${args.workload}.`,
        };
      }
      const selector = args.workload ? all[0].item.spec?.selector.matchLabels : undefined;
      const labelSelector = selector
        ? Object.entries(selector)
            .map(([k, v]) => `${k}=${v}`)
            .join(",")
        : undefined;
      const pods = await request("listing pods", () =>
        client.core.listNamespacedPod({ namespace, ...(labelSelector ? { labelSelector } : {}) }),
      );
      const shown = capped(troubledFirst(pods.items.map((pod) => podDigest(pod))), MAX_PODS, "pods (troubled first)");
      return {
        cluster: client.name,
        namespace,
        workloads: all.map(({ kind, item }) => workloadDigest(kind, item)),
        pods: shown.items,
        ...(shown.cut ? { cut: shown.cut } : {}),
      };
    },
  });
}
