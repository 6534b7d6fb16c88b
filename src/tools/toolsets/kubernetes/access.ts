import type { KubeClient } from "./client.js";

/** One permission a tool needs: a verb on a resource (`group` "" is the core API). */
export interface Permission {
  verb: "get" | "list" | "patch" | "delete";
  group: string;
  resource: string;
  subresource?: string;
  /** Cluster-scoped (nodes): asked once, without a namespace. */
  clusterScoped?: boolean;
}

/** What each tool needs, by tool name. */
export type ToolNeeds = Record<string, readonly Permission[]>;

/** Which tools may run in which namespace of one cluster, as the last access review said. */
export interface AccessTable {
  /** When the review ran (epoch ms). */
  reviewedAt: number;
  /** Namespaces each tool may run in (`*` for a cluster-scoped tool that may run). */
  allowed: Record<string, string[]>;
  /** How many questions got no answer (an error or no reply within the time limit, not a no). */
  unanswered: number;
}

const keyOf = (permission: Permission, namespace: string | undefined) =>
  `${permission.verb} ${permission.group}/${permission.resource}${permission.subresource ? `/${permission.subresource}` : ""} ${namespace ?? "*"}`;

/**
 * Asks the API with SelfSubjectAccessReviews which of the tools' permissions the credentials
 * hold in each allowed namespace (each distinct question once, in parallel, each within the
 * client's `timeoutMs`). A question that fails counts as not allowed: a tool is offered only on
 * a clear yes; `unanswered` counts them, so a caller can keep an earlier table instead.
 */
export async function reviewAccess(client: KubeClient, needs: ToolNeeds): Promise<AccessTable> {
  const questions = new Map<string, { permission: Permission; namespace: string | undefined }>();
  for (const permissions of Object.values(needs)) {
    for (const permission of permissions) {
      const namespaces = permission.clusterScoped ? [undefined] : client.namespaces;
      for (const namespace of namespaces) questions.set(keyOf(permission, namespace), { permission, namespace });
    }
  }
  const answers = new Map<string, boolean>();
  let unanswered = 0;
  await Promise.all(
    [...questions].map(async ([key, { permission, namespace }]) => {
      const answer = await within(ask(client, permission, namespace), client.timeoutMs).catch(() => undefined);
      if (answer === undefined) unanswered += 1;
      answers.set(key, answer === true);
    }),
  );
  const allowed: Record<string, string[]> = {};
  for (const [tool, permissions] of Object.entries(needs)) {
    const clusterScoped = permissions.length > 0 && permissions.every((permission) => permission.clusterScoped);
    const namespaces = clusterScoped ? ["*"] : client.namespaces;
    allowed[tool] = namespaces.filter((namespace) =>
      permissions.every((permission) =>
        answers.get(keyOf(permission, permission.clusterScoped ? undefined : namespace)),
      ),
    );
  }
  return { reviewedAt: Date.now(), allowed, unanswered };
}

/** The answer, or a rejection once `ms` passed (the request is left to end on its own). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function ask(client: KubeClient, permission: Permission, namespace: string | undefined): Promise<boolean> {
  const review = await client.authorization.createSelfSubjectAccessReview({
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: {
        resourceAttributes: {
          verb: permission.verb,
          group: permission.group,
          resource: permission.resource,
          ...(permission.subresource ? { subresource: permission.subresource } : {}),
          ...(namespace ? { namespace } : {}),
        },
      },
    },
  });
  return review.status?.allowed === true;
}

/** Whether the table lets `tool` run in `namespace` (undefined: a cluster-scoped tool). */
export function mayRun(table: AccessTable | undefined, tool: string, namespace: string | undefined): boolean {
  const namespaces = table?.allowed[tool] ?? [];
  return namespaces.includes(namespace ?? "*");
}
