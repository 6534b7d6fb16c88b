import type { V1ContainerStatus, V1DaemonSet, V1Deployment, V1Pod, V1StatefulSet } from "@kubernetes/client-node";

/** A pod as one line of facts: what an SRE reads first. */
export interface PodDigest {
  name: string;
  /** Containers ready / containers. */
  ready: string;
  /** Phase, or the waiting reason that matters more (CrashLoopBackOff, ImagePullBackOff). */
  status: string;
  restarts: number;
  /** Why the last container instance ended, with its exit code (OOMKilled 137, Error 1). */
  lastTermination?: string;
  node?: string;
  age: string;
}

/** A workload's replica counts and its image. */
export interface WorkloadDigest {
  kind: "Deployment" | "StatefulSet" | "DaemonSet";
  name: string;
  /** Ready / desired. */
  ready: string;
  upToDate: number;
  images: string[];
  /** The rollout revision (deployments). */
  revision?: string;
  age: string;
}

/** Seconds, minutes, hours or days since a time, as kubectl prints an age. */
export function ageOf(time: Date | string | undefined, now = Date.now()): string {
  if (time === undefined) return "unknown";
  const seconds = Math.max(0, Math.round((now - new Date(time).getTime()) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7_200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3_600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

function waitingReason(statuses: readonly V1ContainerStatus[]): string | undefined {
  return statuses.map((status) => status.state?.waiting?.reason ?? status.state?.terminated?.reason).find(Boolean);
}

/** The digest of one pod. */
export function podDigest(pod: V1Pod, now = Date.now()): PodDigest {
  const statuses = pod.status?.containerStatuses ?? [];
  const last = statuses.map((status) => status.lastState?.terminated).find((terminated) => terminated !== undefined);
  return {
    name: pod.metadata?.name ?? "",
    ready: `${statuses.filter((status) => status.ready).length}/${pod.spec?.containers.length ?? statuses.length}`,
    status: pod.metadata?.deletionTimestamp
      ? "Terminating"
      : (waitingReason(statuses) ?? pod.status?.phase ?? "Unknown"),
    restarts: statuses.reduce((sum, status) => sum + status.restartCount, 0),
    ...(last ? { lastTermination: `${last.reason ?? "Terminated"} (exit code ${last.exitCode})` } : {}),
    ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
    age: ageOf(pod.metadata?.creationTimestamp, now),
  };
}

/** The digest of a deployment, stateful set or daemon set. */
export function workloadDigest(
  kind: WorkloadDigest["kind"],
  workload: V1Deployment | V1StatefulSet | V1DaemonSet,
  now = Date.now(),
): WorkloadDigest {
  const images = (workload.spec?.template.spec?.containers ?? []).map((container) => container.image ?? "");
  const revision = workload.metadata?.annotations?.["deployment.kubernetes.io/revision"];
  const counts =
    kind === "DaemonSet"
      ? daemonCounts(workload as V1DaemonSet)
      : {
          desired: (workload as V1Deployment).spec?.replicas ?? 1,
          ready: (workload as V1Deployment).status?.readyReplicas ?? 0,
          upToDate: (workload as V1Deployment).status?.updatedReplicas ?? 0,
        };
  return {
    kind,
    name: workload.metadata?.name ?? "",
    ready: `${counts.ready}/${counts.desired}`,
    upToDate: counts.upToDate,
    images,
    ...(kind === "Deployment" && revision ? { revision } : {}),
    age: ageOf(workload.metadata?.creationTimestamp, now),
  };
}

function daemonCounts(set: V1DaemonSet) {
  return {
    desired: set.status?.desiredNumberScheduled ?? 0,
    ready: set.status?.numberReady ?? 0,
    upToDate: set.status?.updatedNumberScheduled ?? 0,
  };
}

/** Pods that are not fine first (not ready, most restarts), so a cap keeps the ones that matter. */
export function troubledFirst(pods: PodDigest[]): PodDigest[] {
  const fine = (pod: PodDigest) => pod.status === "Running" && pod.ready.split("/")[0] === pod.ready.split("/")[1];
  return [...pods].sort((a, b) => Number(fine(a)) - Number(fine(b)) || b.restarts - a.restarts);
}
