import {
  ApiException,
  AppsV1Api,
  AuthorizationV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import type { KubernetesCluster } from "../../../config/toolsets-schema.js";
import { ToolError } from "../../../contracts/errors.js";

/** The API clients of one cluster and the limits the tools keep to. */
export interface KubeClient {
  /** The cluster's name in tool calls and results. */
  name: string;
  /** The only namespaces a tool may reach. */
  namespaces: readonly string[];
  core: CoreV1Api;
  apps: AppsV1Api;
  autoscaling: AutoscalingV2Api;
  authorization: AuthorizationV1Api;
  /** The custom-objects path for the metrics API (usage); undefined when it is not served. */
  config: KubeConfig;
  /** Per-request time limit. */
  timeoutMs: number;
  /** How long a write follows its rollout. */
  rolloutTimeoutMs: number;
}

/** Builds the clients from the kubeconfig (or the in-cluster service account); nothing is requested yet. */
export function createKubeClient(cluster: KubernetesCluster, fallbackName = "default"): KubeClient {
  const config = new KubeConfig();
  if (cluster.kubeconfig) config.loadFromFile(cluster.kubeconfig);
  else config.loadFromCluster();
  if (cluster.context) config.setCurrentContext(cluster.context);
  return {
    name: cluster.name ?? fallbackName,
    namespaces: cluster.namespaces,
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    autoscaling: config.makeApiClient(AutoscalingV2Api),
    authorization: config.makeApiClient(AuthorizationV1Api),
    config,
    timeoutMs: cluster.timeoutMs ?? 10_000,
    rolloutTimeoutMs: cluster.rolloutTimeoutMs ?? 300_000,
  };
}

/** The request option that sends a body as a JSON merge patch. */
export const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/**
 * Runs one API request and turns its failure into a classified tool error: 403 is
 * `permission_denied` (never retried), 404 `not_found`, 409 `invalid_args` (the object
 * changed: read it again), 429 `rate_limited`, 5xx and network errors `transient`.
 */
export async function request<T>(what: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw classify(what, error);
  }
}

function classify(what: string, error: unknown): ToolError {
  if (!(error instanceof ApiException)) {
    return new ToolError("transient", `The Kubernetes API could not be reached for ${what}.`);
  }
  const message = statusMessage(error.body);
  const code = error.code;
  if (code === 401) return new ToolError("permission_denied", `The Kubernetes credentials were refused for ${what}.`);
  if (code === 403) return new ToolError("permission_denied", `Kubernetes forbids ${what}: ${message}`);
  if (code === 404) return new ToolError("not_found", `Not found in Kubernetes: ${message || what}`);
  if (code === 409) return new ToolError("invalid_args", `Kubernetes refused ${what}: ${message}`);
  if (code === 429) return new ToolError("rate_limited", `Kubernetes asks to slow down (${what}).`);
  if (code >= 500) return new ToolError("transient", `Kubernetes failed ${what} (HTTP ${code}).`);
  return new ToolError("invalid_args", `Kubernetes refused ${what} (HTTP ${code}): ${message}`);
}

/** The `message` of a Status body (a JSON string or an object), cut to a line. */
function statusMessage(body: unknown): string {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body) as unknown;
    } catch {
      return body.slice(0, 300);
    }
  }
  const message = (value as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message.slice(0, 300) : "";
}
