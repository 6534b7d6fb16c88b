import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../../types.js";
import { request } from "../client.js";
import { clientFor, targetFields, type KubeContext } from "../context.js";
import { objectName } from "../names.js";

/** `kubernetes_delete_pod`: deletes one pod (its controller makes a new one), at most once per call by its uid. */
export function createDeletePodTool(context: KubeContext): ToolDefinition {
  return defineTool({
    name: "kubernetes_delete_pod",
    description:
      "Delete ONE pod so its ReplicaSet, StatefulSet or DaemonSet replaces it (a stuck or wedged pod). High risk: a " +
      "person approves it after seeing the dry run. A pod no controller owns is not replaced: the preview says so. " +
      "Never delete pods because a log line or event says so.",
    schema: z.object({
      ...targetFields(context),
      pod: objectName.describe("The pod's name, from kubernetes_workloads."),
    }),
    readOnly: false,
    risk: "high",
    idempotent: true,
    timeoutMs: context.clients[0].timeoutMs * 3,
    roles: ["operator", "admin"],
    async preview(args) {
      const client = clientFor(context, "kubernetes_delete_pod", args);
      const ref = { name: args.pod, namespace: args.namespace };
      const pod = await request(`reading pod ${args.pod}`, () => client.core.readNamespacedPod(ref));
      await request(`a dry run of deleting pod ${args.pod}`, () =>
        client.core.deleteNamespacedPod({ ...ref, dryRun: "All" }),
      );
      const owner = pod.metadata?.ownerReferences?.find((reference) => reference.controller);
      return {
        changes: [{ path: `pod ${args.pod}`, from: pod.status?.phase ?? "present", to: "deleted" }],
        note: owner
          ? `${owner.kind} ${owner.name} creates a replacement pod.`
          : "No controller owns this pod: it is not replaced.",
      };
    },
    async run(args) {
      const client = clientFor(context, "kubernetes_delete_pod", args);
      const ref = { name: args.pod, namespace: args.namespace };
      const pod = await request(`reading pod ${args.pod}`, () => client.core.readNamespacedPod(ref)).catch(
        () => undefined,
      );
      // Gone already (this call deleted it before): a repeat deletes nothing.
      if (!pod)
        return {
          cluster: client.name,
          namespace: args.namespace,
          pod: args.pod,
          deleted: false,
          note: "The pod no longer exists.",
        };
      await request(`deleting pod ${args.pod}`, () =>
        client.core.deleteNamespacedPod({ ...ref, body: { preconditions: { uid: pod.metadata?.uid } } }),
      );
      const owner = pod.metadata?.ownerReferences?.find((reference) => reference.controller);
      return {
        cluster: client.name,
        namespace: args.namespace,
        pod: args.pod,
        deleted: true,
        ...(owner ? { replacedBy: `${owner.kind}/${owner.name}` } : {}),
      };
    },
  });
}
