import { z } from "zod";
import type { V1PodTemplateSpec } from "@kubernetes/client-node";
import { ToolError } from "../../../../contracts/errors.js";
import { defineTool, type ToolDefinition } from "../../../types.js";
import { mergePatch, request, type KubeClient } from "../client.js";
import { changedFields } from "./changes.js";
import { clientFor, targetFields, type KubeContext } from "../context.js";
import { followRollout } from "./follow.js";
import { objectName } from "../names.js";
import { readRevisions, setOfRevision } from "../reads/rollouts.js";

/** The revision's pod template as the deployment holds it (without the ReplicaSet's hash label). */
function templateOf(template: V1PodTemplateSpec | undefined): V1PodTemplateSpec {
  const copy = JSON.parse(JSON.stringify(template ?? {})) as V1PodTemplateSpec;
  if (copy.metadata?.labels) delete copy.metadata.labels["pod-template-hash"];
  return copy;
}

async function target(client: KubeClient, namespace: string, name: string, revision: number) {
  const { deployment, sets } = await readRevisions(client, namespace, name);
  const set = setOfRevision(sets, revision);
  if (!set)
    throw new ToolError("not_found", `Deployment ${name} has no revision ${revision}: see kubernetes_rollout_history.`);
  return { deployment, template: templateOf(set.spec?.template) };
}

/** `kubernetes_rollout_undo`: rolls a deployment back to an earlier revision's pod template, then follows the rollout. */
export function createRolloutUndoTool(context: KubeContext): ToolDefinition {
  return defineTool({
    name: "kubernetes_rollout_undo",
    description:
      "Roll a deployment back to an earlier revision (kubectl rollout undo --to-revision): its pod template (images, " +
      "env) becomes that revision's. Pick the revision from kubernetes_rollout_history. High risk: a person approves " +
      "it after seeing the dry run (image a → b). Then the tool follows the rollout and reports its outcome.",
    schema: z.object({
      ...targetFields(context),
      deployment: objectName.describe("The deployment's name."),
      toRevision: z.number().int().min(1).describe("The revision to go back to, from kubernetes_rollout_history."),
    }),
    readOnly: false,
    risk: "high",
    idempotent: true,
    timeoutMs: context.clients[0].rolloutTimeoutMs + context.clients[0].timeoutMs * 4,
    roles: ["operator", "admin"],
    async preview(args) {
      const client = clientFor(context, "kubernetes_rollout_undo", args);
      const { deployment, template } = await target(client, args.namespace, args.deployment, args.toRevision);
      const after = await request(`a dry run of rolling back ${args.deployment}`, () =>
        client.apps.patchNamespacedDeployment(
          { name: args.deployment, namespace: args.namespace, body: { spec: { template } }, dryRun: "All" },
          mergePatch,
        ),
      );
      return { changes: changedFields(deployment, after) };
    },
    async run(args, ctx) {
      const client = clientFor(context, "kubernetes_rollout_undo", args);
      const { deployment, template } = await target(client, args.namespace, args.deployment, args.toRevision);
      // Already on that template (this call ran before, or nothing to undo): nothing is patched again.
      const same = changedFields({ spec: { template: templateOf(deployment.spec?.template) } }, { spec: { template } });
      if (same.length > 0) {
        await request(`rolling back ${args.deployment}`, () =>
          client.apps.patchNamespacedDeployment(
            {
              name: args.deployment,
              namespace: args.namespace,
              body: { metadata: { resourceVersion: deployment.metadata?.resourceVersion }, spec: { template } },
            },
            mergePatch,
          ),
        );
      }
      const outcome = await followRollout(client, args.namespace, args.deployment, ctx.signal);
      return {
        cluster: client.name,
        namespace: args.namespace,
        deployment: args.deployment,
        rolledBack: same.length > 0,
        toRevision: args.toRevision,
        ...outcome,
      };
    },
  });
}
