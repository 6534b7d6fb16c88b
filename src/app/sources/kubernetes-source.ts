import type { ConfigFile } from "../../config/schema.js";
import type { Logger } from "../../service/observability/logger.js";
import type { ToolSource } from "../../tools/source.js";
import type { KubernetesToolSource } from "../../tools/toolsets/kubernetes/index.js";

/** The Kubernetes source and the promise of its first access review. */
export interface StartedKubernetesSource {
  source: ToolSource;
  /**
   * Settles when the first access review ended, each of its questions bounded by the cluster's
   * `timeoutMs` (it never rejects: a failure is logged, and the tools a clear yes allowed stay offered).
   */
  started: Promise<void>;
  /** Reviews the access again (the `kubernetes-access` job); rejects, saying why, when a cluster did not answer. */
  refreshAccess(): Promise<void>;
}

/** The access review of each Kubernetes source this module built, for the job that repeats it. */
const reviews = new WeakMap<ToolSource, () => Promise<void>>();

/**
 * `toolsets.kubernetes` as a tool source, or undefined without it. The client (1.4 s to load)
 * loads only here; until the first SelfSubjectAccessReviews answer, no Kubernetes tool is
 * offered, then the offered ones appear through `onChange`. Start-up never fails on it.
 */
export function startKubernetesSource(config: ConfigFile, logger: Logger): StartedKubernetesSource | undefined {
  const clusters = config.toolsets?.kubernetes;
  if (!clusters) return undefined;
  const listeners: Array<() => void> = [];
  let inner: KubernetesToolSource | undefined;
  const loaded = import("../../tools/toolsets/kubernetes/index.js").then(({ createKubernetesToolSource }) => {
    inner = createKubernetesToolSource(clusters);
    for (const listener of listeners) inner.onChange(listener);
    return inner;
  });
  const refreshAccess = () => loaded.then((source) => source.refreshAccess());
  const source: ToolSource = {
    tools: () => inner?.tools() ?? [],
    onChange(listener) {
      listeners.push(listener);
      inner?.onChange(listener);
    },
    health: () => [],
    close: async () => {},
  };
  reviews.set(source, refreshAccess);
  return {
    source,
    started: refreshAccess().catch((error: unknown) =>
      logger.error("Kubernetes: the first access review failed; only the tools it allowed are offered", error),
    ),
    refreshAccess,
  };
}

/** The access reviews of the Kubernetes sources among `sources` (none without `toolsets.kubernetes`). */
export function accessReviewsOf(sources: readonly ToolSource[]): Array<() => Promise<void>> {
  return sources.flatMap((source) => {
    const review = reviews.get(source);
    return review ? [review] : [];
  });
}
