import { z } from "zod";
import type { OpsStore } from "../ops/store.js";
import {
  ASK_ENVIRONMENT,
  environmentField,
  READ_TIMEOUT_MS,
  serviceField,
  throwIfCancelled,
} from "../ops/tool-fields.js";
import { defineTool, type ToolDefinition } from "../../tools/types.js";
import type { MetricsView } from "../ops/views.js";

const schema = z.object({
  service: serviceField,
  environment: environmentField,
});

/** `get_service_metrics`: current error rate, latency, traffic and resources of one service. */
export function createGetServiceMetricsTool(store: OpsStore): ToolDefinition {
  return defineTool({
    name: "get_service_metrics",
    description:
      "Current health of ONE service in ONE environment over the last 5 minutes: status, running and previous version, " +
      "error rate (%), p95 latency (ms), requests per second, CPU and memory (%), instances, restart count. Use it to judge " +
      "how bad a problem is now, or to check a service after a restart or rollback. Needs the environment: if the user did " +
      "not name one, leave it out and the user will be asked. Not for error details (search_logs) or advice (search_docs).",
    schema,
    readOnly: true,
    risk: "low",
    askUser: { environment: ASK_ENVIRONMENT },
    timeoutMs: READ_TIMEOUT_MS,
    summarize(result) {
      const view = result as MetricsView;
      const { errorRatePercent, p95LatencyMs, rps } = view.metrics;
      return [
        `${view.service} ${view.environment}: ${view.status}, version ${view.version}` +
          `${view.previousVersion ? ` (previous ${view.previousVersion})` : ""}`,
        `error rate ${errorRatePercent}%, p95 ${p95LatencyMs} ms, ${rps} rps, restarts ${view.restartCount}`,
      ];
    },
    async run(args, ctx) {
      throwIfCancelled(ctx.signal);
      const service = store.resolveService(args.service);
      return store.getMetrics(service.id, args.environment);
    },
  });
}
