import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../../types.js";
import { capped, clientFor, targetFields, type KubeContext } from "../context.js";
import { objectName } from "../names.js";
import { readRevisions, type Revision } from "./rollouts.js";

/** `kubernetes_rollout_history`: a deployment's revisions, newest first: images, change cause, when. */
export function createRolloutHistoryTool(context: KubeContext): ToolDefinition {
  return defineTool({
    name: "kubernetes_rollout_history",
    description:
      "A deployment's rollout history, newest revision first: each revision's images, change cause, when it was " +
      "created and how many replicas it runs, the current one marked. Use it to see what rolled out just before a " +
      "problem began, and to pick the revision for kubernetes_rollout_undo.",
    schema: z.object({ ...targetFields(context), deployment: objectName.describe("The deployment's name.") }),
    readOnly: true,
    risk: "low",
    timeoutMs: context.clients[0].timeoutMs * 2,
    summarize(result) {
      const view = result as { deployment: string; revisions: Revision[] };
      const top = view.revisions[0];
      return top ? [`${view.deployment} revision ${top.revision} ${top.images.join(",")} ${top.age} ago`] : [];
    },
    async run(args) {
      const client = clientFor(context, "kubernetes_rollout_history", args);
      const { revisions } = await readRevisions(client, args.namespace, args.deployment);
      const shown = capped(revisions, 15, "revisions (newest first)");
      return {
        cluster: client.name,
        namespace: args.namespace,
        deployment: args.deployment,
        revisions: shown.items,
        ...(shown.cut ? { cut: shown.cut } : {}),
      };
    },
  });
}
