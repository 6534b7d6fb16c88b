import type { ToolRegistry } from "../../tools/registry.js";
import type { ToolContext } from "../../tools/types.js";
import { maskValue } from "../../execution/sanitize.js";

/** Rollouts this recent are named in the first message. */
const RECENT_MS = 6 * 3_600_000;

interface Pod {
  name: string;
  ready: string;
  status: string;
  restarts: number;
  lastTermination?: string;
  node?: string;
}
interface Workload {
  kind: string;
  name: string;
  ready: string;
  images: string[];
  revision?: string;
}
interface Revision {
  revision: number;
  images: string[];
  changeCause?: string;
  created: string;
  age: string;
}

/** Runs a registered read directly (as the briefing's system user), its result masked; undefined when absent or failing. */
async function read<T>(registry: ToolRegistry, name: string, args: Record<string, unknown>): Promise<T | undefined> {
  const tool = registry.get(name);
  const parsed = tool?.schema.safeParse(args);
  if (!tool || !parsed?.success) return undefined;
  const ctx: ToolContext = {
    signal: AbortSignal.timeout(tool.timeoutMs),
    idempotencyKey: `briefing:${name}`,
    threadId: "briefing",
    callId: name,
    user: { id: "opspilot-briefing", role: "viewer" },
  };
  const result = await tool.run(parsed.data, ctx).catch(() => undefined);
  return result === undefined ? undefined : (maskValue(result) as T);
}

function podLine(pod: Pod): string {
  const last = pod.lastTermination ? `, last ${pod.lastTermination}` : "";
  const node = pod.node ? `, node ${pod.node}` : "";
  return `- ${pod.name}: ${pod.status}, ${pod.ready} ready, ${pod.restarts} restarts${last}${node}`;
}

/**
 * The first-message section of an alert whose labels name a Kubernetes workload (`namespace`
 * with `deployment`, `statefulset`, `daemonset` or `pod`; `cluster` when several): its pods'
 * digest and its rollouts of the last hours, from the Kubernetes tools the app offers. Nothing
 * when the labels name no workload or no such tool is offered.
 */
export async function kubernetesSection(
  registry: ToolRegistry,
  labels: Record<string, string>,
  now = Date.now(),
): Promise<string[]> {
  const namespace = labels.namespace;
  const workload = labels.deployment ?? labels.statefulset ?? labels.daemonset;
  if (!namespace || (!workload && !labels.pod)) return [];
  const target = { namespace, ...(labels.cluster ? { cluster: labels.cluster } : {}) };
  const view = await read<{ workloads: Workload[]; pods: Pod[] }>(registry, "kubernetes_workloads", {
    ...target,
    ...(workload ? { workload } : {}),
  });
  if (!view) return [];
  const pods = workload ? view.pods : view.pods.filter((pod) => pod.name === labels.pod);
  const lines = [`Kubernetes (${namespace}${workload ? `, ${workload}` : ""}), read when the incident opened:`];
  for (const item of view.workloads) {
    const revision = item.revision ? `, revision ${item.revision}` : "";
    lines.push(`${item.kind} ${item.name}: ${item.ready} ready, images ${item.images.join(", ")}${revision}`);
  }
  lines.push(...pods.slice(0, 10).map(podLine));
  if (labels.deployment) lines.push(...(await rolloutLines(registry, target, labels.deployment, now)));
  return [lines.join("\n")];
}

async function rolloutLines(
  registry: ToolRegistry,
  target: Record<string, string>,
  deployment: string,
  now: number,
): Promise<string[]> {
  const history = await read<{ revisions: Revision[] }>(registry, "kubernetes_rollout_history", {
    ...target,
    deployment,
  });
  if (!history) return [];
  const recent = history.revisions.filter((revision) => now - Date.parse(revision.created) < RECENT_MS);
  if (recent.length === 0) return [`${deployment} has not rolled out in the last 6 hours.`];
  return recent.map((revision) => {
    const cause = revision.changeCause ? ` (${revision.changeCause})` : "";
    return `${deployment} rolled out revision ${revision.revision}, image ${revision.images.join(", ")}, ${revision.age} before this incident opened${cause}`;
  });
}
