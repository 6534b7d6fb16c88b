import type { V1Deployment } from "@kubernetes/client-node";
import { request, type KubeClient } from "../client.js";

/** How a rollout ended for the approver and the model. */
export interface RolloutOutcome {
  outcome: "complete" | "stuck" | "timed_out";
  revision?: string;
  readyReplicas: number;
  desiredReplicas: number;
  /** What holds the rollout back, when it did not complete. */
  detail?: string;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

function judge(deployment: V1Deployment): RolloutOutcome | undefined {
  const desired = deployment.spec?.replicas ?? 1;
  const status = deployment.status ?? {};
  const base = {
    revision: deployment.metadata?.annotations?.["deployment.kubernetes.io/revision"],
    readyReplicas: status.readyReplicas ?? 0,
    desiredReplicas: desired,
  };
  if ((status.observedGeneration ?? 0) < (deployment.metadata?.generation ?? 0)) return undefined;
  const stuck = (status.conditions ?? []).find(
    (condition) => condition.type === "Progressing" && condition.reason === "ProgressDeadlineExceeded",
  );
  if (stuck) return { ...base, outcome: "stuck", detail: stuck.message ?? "ProgressDeadlineExceeded" };
  const done =
    (status.updatedReplicas ?? 0) === desired &&
    (status.availableReplicas ?? 0) === desired &&
    (status.replicas ?? 0) === desired;
  return done ? { ...base, outcome: "complete" } : undefined;
}

/**
 * Follows a deployment's rollout until it completes, its progress deadline passes, or the
 * cluster's `rolloutTimeoutMs` runs out (then it says how many replicas are ready).
 */
export async function followRollout(
  client: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<RolloutOutcome> {
  const deadline = Date.now() + client.rolloutTimeoutMs;
  const interval = Math.min(2_000, Math.max(100, client.rolloutTimeoutMs / 20));
  for (;;) {
    const deployment = await request(`reading deployment ${name}`, () =>
      client.apps.readNamespacedDeployment({ name, namespace }),
    );
    const outcome = judge(deployment);
    if (outcome) return outcome;
    if (Date.now() >= deadline || signal.aborted) {
      const ready = deployment.status?.readyReplicas ?? 0;
      const desired = deployment.spec?.replicas ?? 1;
      return {
        outcome: "timed_out",
        revision: deployment.metadata?.annotations?.["deployment.kubernetes.io/revision"],
        readyReplicas: ready,
        desiredReplicas: desired,
        detail: `${ready} of ${desired} replicas ready when the time limit passed; see kubernetes_workloads`,
      };
    }
    await sleep(interval, signal);
  }
}
