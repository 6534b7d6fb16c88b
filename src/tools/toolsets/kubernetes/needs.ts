import type { ToolNeeds } from "./access.js";

/** The permissions each Kubernetes tool needs: a tool is offered only where the credentials hold them all. */
export const TOOL_NEEDS: ToolNeeds = {
  kubernetes_workloads: [
    { verb: "list", group: "apps", resource: "deployments" },
    { verb: "list", group: "", resource: "pods" },
  ],
  kubernetes_events: [{ verb: "list", group: "", resource: "events" }],
  kubernetes_pod_logs: [{ verb: "get", group: "", resource: "pods", subresource: "log" }],
  kubernetes_rollout_history: [
    { verb: "get", group: "apps", resource: "deployments" },
    { verb: "list", group: "apps", resource: "replicasets" },
  ],
  kubernetes_nodes: [{ verb: "list", group: "", resource: "nodes", clusterScoped: true }],
  kubernetes_hpa: [{ verb: "list", group: "autoscaling", resource: "horizontalpodautoscalers" }],
  kubernetes_rollout_restart: [{ verb: "patch", group: "apps", resource: "deployments" }],
  kubernetes_scale: [{ verb: "patch", group: "apps", resource: "deployments", subresource: "scale" }],
  kubernetes_rollout_undo: [
    { verb: "patch", group: "apps", resource: "deployments" },
    { verb: "list", group: "apps", resource: "replicasets" },
  ],
  kubernetes_delete_pod: [{ verb: "delete", group: "", resource: "pods" }],
};
