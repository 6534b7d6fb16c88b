import type { ConfigFile } from "../../config/schema.js";
import type { Logger } from "../../service/observability/logger.js";
import type { ToolSource } from "../../tools/source.js";
import type { KubernetesToolSource } from "../../tools/toolsets/kubernetes/index.js";

/** The Kubernetes source and the promise of its first access review. */
export interface StartedKubernetesSource {
  source: ToolSource;
  /** Settles when the first access review ended (it never rejects: a failure is logged). */
  started: Promise<void>;
  /** Reviews the access again (for a scheduled job); resolves when the tool list is current. */
  refreshAccess(): Promise<void>;
}

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
  const refreshAccess = () =>
    loaded
      .then((source) => source.refreshAccess())
      .catch((error: unknown) =>
        logger.error("Kubernetes: the access review failed; its tools stay as they were", error),
      );
  return {
    source: {
      tools: () => inner?.tools() ?? [],
      onChange(listener) {
        listeners.push(listener);
        inner?.onChange(listener);
      },
      health: () => [],
      close: async () => {},
    },
    started: refreshAccess(),
    refreshAccess,
  };
}
