import { z } from "zod";
import { ToolError } from "../../../contracts/errors.js";
import { mayRun, type AccessTable } from "./access.js";
import type { KubeClient } from "./client.js";
import { clusterField, namespaceField } from "./names.js";

/** The clusters the tools reach and what the last access review allows on each. */
export interface KubeContext {
  /** The configured clusters, the default first. */
  clients: readonly KubeClient[];
  /** The last access review of each cluster, by name; absent until the first one ends. */
  access: Map<string, AccessTable>;
}

/** The `namespace` (and, for several clusters, `cluster`) fields every namespaced tool takes. */
export function targetFields(context: KubeContext) {
  const namespaces = [...new Set(context.clients.flatMap((client) => client.namespaces))];
  return {
    namespace: namespaceField(namespaces),
    ...(context.clients.length > 1 ? { cluster: clusterField(context.clients.map((client) => client.name)) } : {}),
  };
}

/** The `cluster` field alone, for a cluster-scoped tool. */
export function clusterFields(context: KubeContext) {
  return context.clients.length > 1 ? { cluster: clusterField(context.clients.map((client) => client.name)) } : {};
}

/** An optional `cluster` in a tool's arguments. */
export const ClusterArgs = z.object({ cluster: z.string().optional() });

/**
 * The client a call reaches, after the checks that come before any request: the namespace is
 * one the cluster allows, and the last access review lets this tool run there (a call the
 * review rules out is `permission_denied`, whoever forced it).
 */
export function clientFor(
  context: KubeContext,
  tool: string,
  args: { cluster?: unknown; namespace?: string },
): KubeClient {
  const client =
    typeof args.cluster === "string" ? context.clients.find((each) => each.name === args.cluster) : context.clients[0];
  if (!client) throw new ToolError("invalid_args", `There is no Kubernetes cluster named "${String(args.cluster)}".`);
  if (args.namespace !== undefined && !client.namespaces.includes(args.namespace)) {
    throw new ToolError(
      "permission_denied",
      `Namespace "${args.namespace}" is not one the ${client.name} cluster's tools may reach (${client.namespaces.join(", ")}).`,
    );
  }
  if (!mayRun(context.access.get(client.name), tool, args.namespace)) {
    const where = args.namespace ? ` in namespace "${args.namespace}"` : "";
    throw new ToolError(
      "permission_denied",
      `The Kubernetes credentials may not use ${tool}${where} on ${client.name}.`,
    );
  }
  return client;
}

/** At most `max` items, with the cut stated when there were more. */
export function capped<T>(items: readonly T[], max: number, what: string): { items: T[]; cut?: string } {
  if (items.length <= max) return { items: [...items] };
  return { items: items.slice(0, max), cut: `showing ${max} of ${items.length} ${what}` };
}
