import { z } from "zod";
import type { V2HorizontalPodAutoscaler } from "@kubernetes/client-node";
import { defineTool, type ToolDefinition } from "../../../types.js";
import { request } from "../client.js";
import { clientFor, targetFields, type KubeContext } from "../context.js";

function hpaView(hpa: V2HorizontalPodAutoscaler) {
  const current = hpa.status?.currentReplicas ?? 0;
  const max = hpa.spec?.maxReplicas ?? 0;
  return {
    name: hpa.metadata?.name ?? "",
    target: `${hpa.spec?.scaleTargetRef.kind}/${hpa.spec?.scaleTargetRef.name}`,
    minReplicas: hpa.spec?.minReplicas ?? 1,
    maxReplicas: max,
    currentReplicas: current,
    desiredReplicas: hpa.status?.desiredReplicas ?? 0,
    atMaximum: current >= max,
    metrics: (hpa.status?.currentMetrics ?? []).map((metric) => ({
      type: metric.type,
      name: metric.resource?.name ?? metric.pods?.metric.name ?? metric.external?.metric.name,
      current: metric.resource?.current ?? metric.pods?.current ?? metric.external?.current,
    })),
    targets: (hpa.spec?.metrics ?? []).map((metric) => ({
      type: metric.type,
      name: metric.resource?.name,
      target: metric.resource?.target,
    })),
    conditions: (hpa.status?.conditions ?? [])
      .filter((condition) => (condition.type === "ScalingLimited") === (condition.status === "True"))
      .map((condition) =>
        `${condition.type}=${condition.status}: ${condition.reason ?? ""} ${condition.message ?? ""}`.trim(),
      ),
  };
}

/** `kubernetes_hpa`: the HorizontalPodAutoscalers of a namespace: replicas against their bounds, metrics, limits hit. */
export function createHpaTool(context: KubeContext): ToolDefinition {
  return defineTool({
    name: "kubernetes_hpa",
    description:
      "List a namespace's HorizontalPodAutoscalers: target workload, min/max/current/desired replicas, whether it " +
      "is at its maximum, current metric values against their targets, and conditions that limit scaling. Use it " +
      "when a service is overloaded or scaling does not keep up.",
    schema: z.object({ ...targetFields(context) }),
    readOnly: true,
    risk: "low",
    timeoutMs: context.clients[0].timeoutMs,
    summarize(result) {
      const view = result as { autoscalers: Array<ReturnType<typeof hpaView>> };
      return view.autoscalers.filter((hpa) => hpa.atMaximum).map((hpa) => `${hpa.name} at max ${hpa.maxReplicas}`);
    },
    async run(args) {
      const client = clientFor(context, "kubernetes_hpa", args);
      const list = await request("listing horizontalpodautoscalers", () =>
        client.autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace: args.namespace }),
      );
      return { cluster: client.name, namespace: args.namespace, autoscalers: list.items.map(hpaView) };
    },
  });
}
