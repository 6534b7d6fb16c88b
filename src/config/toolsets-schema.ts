import { z } from "zod";
import { ElasticsearchToolsetSchema, LokiToolsetSchema } from "./log-toolsets-schema.js";
import { ToolsetEndpointSchema } from "./toolset-endpoint-schema.js";
import { GithubToolsetSchema } from "./ticket-toolset-schema.js";

export { ToolsetEndpointSchema };

/** One Kubernetes cluster: a kubeconfig (or the in-cluster service account) and the namespaces the tools may reach. */
export const KubernetesClusterSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { error: "must be a short lowercase name" })
      .optional()
      .describe("The cluster's name in tool calls (`cluster`); required when several clusters are listed"),
    kubeconfig: z
      .string()
      .min(1)
      .optional()
      .describe("Path of a kubeconfig file (may use ${VAR}); without it, the in-cluster service account"),
    context: z.string().min(1).optional().describe("The kubeconfig context to use (default: its current context)"),
    namespaces: z
      .array(z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { error: "must be a Kubernetes namespace name" }))
      .min(1)
      .describe("The only namespaces the tools may read or change"),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(120_000)
      .optional()
      .describe("How long one API request may take (default 10000)"),
    rolloutTimeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(1_800_000)
      .optional()
      .describe("How long a write follows the rollout it started before it reports what is stuck (default 300000)"),
  })
  .strict();

/** `toolsets`: the built-in tools for the monitoring stack, each registered only when its server is named. */
export const ToolsetsSchema = z
  .object({
    prometheus: ToolsetEndpointSchema.optional().describe(
      "Prometheus's HTTP API: prometheus_query, prometheus_query_range, prometheus_alerts, prometheus_metric_names",
    ),
    alertmanager: ToolsetEndpointSchema.optional().describe(
      "Alertmanager's API v2: alertmanager_silences, alertmanager_create_silence, alertmanager_expire_silence",
    ),
    loki: LokiToolsetSchema.optional(),
    elasticsearch: ElasticsearchToolsetSchema.optional(),
    kubernetes: z
      .union([
        KubernetesClusterSchema,
        z
          .array(KubernetesClusterSchema.required({ name: true }))
          .min(1)
          .refine((list) => new Set(list.map((cluster) => cluster.name)).size === list.length, {
            error: "cluster names must differ",
          }),
      ])
      .optional()
      .describe(
        "Kubernetes clusters: kubernetes_workloads, kubernetes_events, kubernetes_pod_logs, kubernetes_rollout_history, kubernetes_nodes, kubernetes_hpa and the approved writes kubernetes_rollout_restart, kubernetes_scale, kubernetes_rollout_undo, kubernetes_delete_pod",
      ),
    github: GithubToolsetSchema.optional().describe(
      "GitHub Issues: github_create_issue files a follow-up issue (the token in headers, e.g. Bearer ${GITHUB_TOKEN}), only with a person's approval",
    ),
  })
  .strict();

/** One configured toolset server. */
export type ToolsetEndpoint = z.infer<typeof ToolsetEndpointSchema>;
/** The configured toolsets. */
export type Toolsets = z.infer<typeof ToolsetsSchema>;
/** One configured Kubernetes cluster. */
export type KubernetesCluster = z.infer<typeof KubernetesClusterSchema>;
