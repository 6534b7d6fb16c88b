import type { JobDefinition } from "./job.js";

/** How often each process asks its clusters again what its credentials may do, unless `OPSPILOT_KUBERNETES_ACCESS_INTERVAL` says otherwise. */
export const KUBERNETES_ACCESS_MS = 300_000;

/**
 * The `kubernetes-access` job: the SelfSubjectAccessReviews of `toolsets.kubernetes` again every
 * `everyMs`, in every process (each offers its own tool list), so tools appear or go when the
 * credentials gain or lose a verb, without a restart. The first review runs at start-up, not here.
 */
export function kubernetesAccessJob(
  reviews: ReadonlyArray<() => Promise<void>>,
  everyMs = KUBERNETES_ACCESS_MS,
): JobDefinition {
  return {
    name: "kubernetes-access",
    perProcess: true,
    schedule: { kind: "every", ms: everyMs },
    async run() {
      await Promise.all(reviews.map((review) => review()));
    },
  };
}
