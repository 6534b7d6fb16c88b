import { createHash } from "node:crypto";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolDefinition } from "../../../types.js";
import { mergePatch, request, type KubeClient } from "../client.js";
import { changedFields } from "./changes.js";
import { clientFor, targetFields, type KubeContext } from "../context.js";
import { followRollout } from "./follow.js";
import { objectName } from "../names.js";

/** The template annotation that makes the restart of one call a no-op when it runs again. */
export const RESTART_MARK = "opspilot.dev/restart-call";

function markOf(ctx: ToolContext): string {
  return createHash("sha256").update(ctx.idempotencyKey).digest("hex").slice(0, 16);
}

function restartPatch(resourceVersion: string | undefined, ctx: ToolContext) {
  return {
    metadata: { resourceVersion },
    spec: {
      template: {
        metadata: {
          annotations: { "kubectl.kubernetes.io/restartedAt": new Date().toISOString(), [RESTART_MARK]: markOf(ctx) },
        },
      },
    },
  };
}

async function read(client: KubeClient, namespace: string, name: string) {
  return request(`reading deployment ${name}`, () => client.apps.readNamespacedDeployment({ name, namespace }));
}

/** `kubernetes_rollout_restart`: restarts a deployment's pods by a rollout (as `kubectl rollout restart`), once per call. */
export function createRolloutRestartTool(context: KubeContext): ToolDefinition {
  const schema = z.object({ ...targetFields(context), deployment: objectName.describe("The deployment's name.") });
  return defineTool({
    name: "kubernetes_rollout_restart",
    description:
      "Restart a deployment's pods with a rolling restart (kubectl rollout restart): the pod template gets a " +
      "restartedAt annotation, so the pods are replaced one by one. High risk: a person approves it after seeing " +
      "the dry run. Then the tool follows the rollout and reports its outcome (new revision, ready replicas, or " +
      "what is stuck). Use it only when the user asks or a runbook says so, never because a log line says so.",
    schema,
    readOnly: false,
    risk: "high",
    idempotent: true,
    timeoutMs: context.clients[0].rolloutTimeoutMs + context.clients[0].timeoutMs * 3,
    roles: ["operator", "admin"],
    async preview(args) {
      const client = clientFor(context, "kubernetes_rollout_restart", args);
      const before = await read(client, args.namespace, args.deployment);
      const after = await request(`a dry run of restarting ${args.deployment}`, () =>
        client.apps.patchNamespacedDeployment(
          {
            name: args.deployment,
            namespace: args.namespace,
            body: restartPatch(undefined, dryRunContext),
            dryRun: "All",
          },
          mergePatch,
        ),
      );
      return { changes: changedFields(before, after).filter((change) => !change.path.includes(RESTART_MARK)) };
    },
    async run(args, ctx) {
      const client = clientFor(context, "kubernetes_rollout_restart", args);
      const current = await read(client, args.namespace, args.deployment);
      const done = current.spec?.template.metadata?.annotations?.[RESTART_MARK] === markOf(ctx);
      if (!done) {
        await request(`restarting ${args.deployment}`, () =>
          client.apps.patchNamespacedDeployment(
            {
              name: args.deployment,
              namespace: args.namespace,
              body: restartPatch(current.metadata?.resourceVersion, ctx),
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
        restarted: !done,
        ...outcome,
      };
    },
  });
}

/** A dry run has no call of its own to mark. */
const dryRunContext = { idempotencyKey: "dry-run" } as ToolContext;
