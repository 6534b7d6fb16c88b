import { z } from "zod";
import type { CoreV1Event } from "@kubernetes/client-node";
import { defineTool, type ToolDefinition } from "../../../types.js";
import { request } from "../client.js";
import { capped, clientFor, targetFields, type KubeContext } from "../context.js";
import { ageOf } from "./digest.js";
import { objectName } from "../names.js";

const MAX_EVENTS = 40;

/** One event line after folding: the same object, reason and message once, with the summed count. */
export interface FoldedEvent {
  type: string;
  reason: string;
  object: string;
  message: string;
  count: number;
  lastSeen: string;
}

function lastTime(event: CoreV1Event): number {
  const time = event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata.creationTimestamp;
  return time ? new Date(time).getTime() : 0;
}

/** Newest first, repeats folded with their counts. */
export function foldEvents(events: readonly CoreV1Event[], now = Date.now()): FoldedEvent[] {
  const folded = new Map<string, FoldedEvent & { at: number }>();
  for (const event of events) {
    const object = `${event.involvedObject.kind}/${event.involvedObject.name}`;
    const key = `${object}|${event.reason}|${event.message}`;
    const at = lastTime(event);
    const count = event.count ?? 1;
    const seen = folded.get(key);
    if (seen) {
      seen.count += count;
      if (at > seen.at) Object.assign(seen, { at, lastSeen: ageOf(new Date(at), now) });
    } else {
      folded.set(key, {
        type: event.type ?? "Normal",
        reason: event.reason ?? "",
        object,
        message: (event.message ?? "").slice(0, 300),
        count,
        lastSeen: `${ageOf(new Date(at), now)} ago`,
        at,
      });
    }
  }
  return [...folded.values()].sort((a, b) => b.at - a.at).map(({ at: _at, ...event }) => event);
}

/** `kubernetes_events`: the events of a namespace or of one object, newest first, repeats folded. */
export function createEventsTool(context: KubeContext): ToolDefinition {
  return defineTool({
    name: "kubernetes_events",
    description:
      "Read Kubernetes events (BackOff, OOMKilling, Failed image pulls, scheduling failures, scaling) of a namespace " +
      "or of one object (`name`, optionally `kind` such as Pod or Deployment), newest first, repeats folded with " +
      "their counts. Use it after kubernetes_workloads shows a troubled pod or workload.",
    schema: z.object({
      ...targetFields(context),
      name: objectName.optional().describe("Only the events of the object with this name."),
      kind: z
        .enum(["Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Node", "HorizontalPodAutoscaler"])
        .optional()
        .describe("The object's kind, with `name`."),
      warningsOnly: z.boolean().optional().describe("Only Warning events (default false)."),
    }),
    readOnly: true,
    risk: "low",
    timeoutMs: context.clients[0].timeoutMs,
    summarize(result) {
      const view = result as { events: FoldedEvent[] };
      return view.events.slice(0, 3).map((event) => `${event.reason} ${event.object} x${event.count}`);
    },
    async run(args) {
      const client = clientFor(context, "kubernetes_events", args);
      const fields = [
        ...(args.name ? [`involvedObject.name=${args.name}`] : []),
        ...(args.kind ? [`involvedObject.kind=${args.kind}`] : []),
        ...(args.warningsOnly ? ["type=Warning"] : []),
      ];
      const list = await request("listing events", () =>
        client.core.listNamespacedEvent({
          namespace: args.namespace,
          ...(fields.length ? { fieldSelector: fields.join(",") } : {}),
        }),
      );
      const shown = capped(foldEvents(list.items), MAX_EVENTS, "folded events (newest first)");
      return {
        cluster: client.name,
        namespace: args.namespace,
        events: shown.items,
        ...(shown.cut ? { cut: shown.cut } : {}),
      };
    },
  });
}
