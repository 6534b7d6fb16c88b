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
import type { RestartResult } from "../ops/actions.js";

const schema = z.object({
  service: serviceField,
  environment: environmentField,
  reason: z
    .string()
    .max(500)
    .optional()
    .describe("Why the restart is needed, in one sentence; recorded with the action."),
});

/** `restart_service`: a high-risk write that restarts one service in one environment, once per call. */
export function createRestartServiceTool(store: OpsStore): ToolDefinition {
  return defineTool({
    name: "restart_service",
    description:
      "Restart ONE service in ONE environment (rolling restart). High risk: the user must approve it before it runs. " +
      "Use it only when the user asks for a restart, or when a runbook recommends one for the errors you found (for " +
      "example connection pool exhaustion) and the user agrees. Do not restart to 'try something', and never as a " +
      "substitute for reading logs. Needs the environment: if the user did not name one, leave it out and the user " +
      "will be asked. Returns what was done: restartedAt, restartCount, status before and after (recovering); check " +
      "get_service_metrics afterwards instead of claiming the problem is fixed.",
    schema,
    readOnly: false,
    risk: "high",
    askUser: { environment: ASK_ENVIRONMENT },
    timeoutMs: WRITE_TIMEOUT_MS,
    roles: ["operator", "admin"],
    summarize(result) {
      const done = result as RestartResult;
      return [
        `restarted ${done.service} ${done.environment} at ${done.restartedAt} (restart ${done.restartCount}): ` +
          `${done.statusBefore} → ${done.statusAfter}, version ${done.version}`,
      ];
    },
    async run(args, ctx) {
      throwIfCancelled(ctx.signal);
      const service = store.resolveService(args.service);
      const { result } = await store.restartService({
        service: service.id,
        environment: args.environment,
        reason: args.reason,
        idempotencyKey: ctx.idempotencyKey,
      });
      return result;
    },
  });
}
