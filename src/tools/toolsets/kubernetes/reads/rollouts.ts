import type { V1Deployment, V1ReplicaSet } from "@kubernetes/client-node";
import { request, type KubeClient } from "../client.js";
import { ageOf } from "./digest.js";

/** One revision of a deployment, newest first. */
export interface Revision {
  revision: number;
  images: string[];
  changeCause?: string;
  /** When the revision's ReplicaSet was made (ISO 8601) and how long ago. */
  created: string;
  age: string;
  replicas: number;
  current: boolean;
}

const REVISION = "deployment.kubernetes.io/revision";

/** The deployment and its ReplicaSets (the revisions), read together. */
export async function readRevisions(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<{ deployment: V1Deployment; sets: V1ReplicaSet[]; revisions: Revision[] }> {
  const deployment = await request(`reading deployment ${name}`, () =>
    client.apps.readNamespacedDeployment({ name, namespace }),
  );
  const labels = deployment.spec?.selector.matchLabels ?? {};
  const labelSelector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const list = await request(`listing the replicasets of ${name}`, () =>
    client.apps.listNamespacedReplicaSet({ namespace, ...(labelSelector ? { labelSelector } : {}) }),
  );
  const sets = list.items.filter((set) =>
    (set.metadata?.ownerReferences ?? []).some((owner) => owner.kind === "Deployment" && owner.name === name),
  );
  const current = deployment.metadata?.annotations?.[REVISION];
  const revisions = sets
    .map((set): Revision => {
      const created = set.metadata?.creationTimestamp;
      return {
        revision: Number(set.metadata?.annotations?.[REVISION] ?? 0),
        images: (set.spec?.template?.spec?.containers ?? []).map((container) => container.image ?? ""),
        ...(set.metadata?.annotations?.["kubernetes.io/change-cause"]
          ? { changeCause: set.metadata.annotations["kubernetes.io/change-cause"] }
          : {}),
        created: created ? new Date(created).toISOString() : "unknown",
        age: ageOf(created),
        replicas: set.status?.replicas ?? 0,
        current: set.metadata?.annotations?.[REVISION] === current,
      };
    })
    .sort((a, b) => b.revision - a.revision);
  return { deployment, sets, revisions };
}

/** The ReplicaSet of one revision, or undefined. */
export function setOfRevision(sets: readonly V1ReplicaSet[], revision: number): V1ReplicaSet | undefined {
  return sets.find((set) => Number(set.metadata?.annotations?.[REVISION]) === revision);
}
