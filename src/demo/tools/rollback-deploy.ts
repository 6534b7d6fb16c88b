import { z } from "zod";
import type { OpsStore } from "../ops/store.js";
import {
  ASK_ENVIRONMENT,
  environmentField,
  serviceField,
  throwIfCancelled,
  WRITE_TIMEOUT_MS,
} from "../ops/tool-fields.js";
import { defineTool, type ToolDefinition } from "../../tools/types.js";
import type { RollbackResult } from "../ops/actions.js";

const schema = z.object({
  service: serviceField,
  environment: environmentField,
  toVersion: z
    .string()
    .min(1)
    .optional()
    .describe('An earlier release to roll back to, e.g. "3.8.1". Omit to roll back to the previous version.'),
});

/** `rollback_deploy`: a high-risk, admin-only write that moves a service back to an earlier release. */
export function createRollbackDeployTool(store: OpsStore): ToolDefinition {
  return defineTool({
    name: "rollback_deploy",
    description:
      "Roll ONE service in ONE environment back to its previous version (or a named earlier release). High risk and " +
      "admin only: the user must approve it. Use it only when errors started right after a deployment and the user " +
      "asks for a rollback or agrees to the runbook's advice; check the running and previous version with " +
      "get_service_metrics first. Not for errors caused by an upstream dependency, where a rollback does not help. " +
      "Needs the environment: if the user did not name one, leave it out and the user will be asked. " +
      "Returns fromVersion, toVersion and the status after (recovering).",
    schema,
    readOnly: false,
    risk: "high",
    askUser: { environment: ASK_ENVIRONMENT },
    timeoutMs: WRITE_TIMEOUT_MS,
    roles: ["admin"],
    summarize(result) {
      const done = result as RollbackResult;
      return [
        `rolled back ${done.service} ${done.environment} from ${done.fromVersion} to ${done.toVersion} at ` +
          `${done.rolledBackAt}: ${done.statusBefore} → ${done.statusAfter}`,
      ];
    },
    async run(args, ctx) {
      throwIfCancelled(ctx.signal);
      const service = store.resolveService(args.service);
      const { result } = await store.rollbackDeploy({
        service: service.id,
        environment: args.environment,
        toVersion: args.toVersion,
        idempotencyKey: ctx.idempotencyKey,
      });
      return result;
    },
  });
}
