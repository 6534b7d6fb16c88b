import { z } from "zod";

/** Most alerts one webhook may carry; Alertmanager's `max_alerts` (0: unlimited) should stay below it. */
export const MAX_ALERTS_PER_GROUP = 1_000;

const Labels = z.record(z.string(), z.string());

/** One alert of an Alertmanager webhook (payload version 4). */
const AlertSchema = z.object({
  status: z.enum(["firing", "resolved"]),
  labels: Labels,
  annotations: Labels.default({}),
  startsAt: z.string(),
  endsAt: z.string().optional(),
  generatorURL: z.string().default(""),
  fingerprint: z.string().min(1),
});

/** Alertmanager's webhook body, version 4 (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config). */
export const AlertmanagerPayloadSchema = z.object({
  version: z.literal("4", { error: (issue) => `version must be "4", not ${JSON.stringify(issue.input)}` }),
  groupKey: z.string().min(1),
  status: z.enum(["firing", "resolved"]),
  receiver: z.string(),
  groupLabels: Labels.default({}),
  commonLabels: Labels.default({}),
  commonAnnotations: Labels.default({}),
  externalURL: z.string().default(""),
  truncatedAlerts: z.number().int().min(0).default(0),
  alerts: z
    .array(AlertSchema)
    .min(1)
    .max(
      MAX_ALERTS_PER_GROUP,
      `at most ${MAX_ALERTS_PER_GROUP} alerts in one delivery (set max_alerts in Alertmanager)`,
    ),
});

/** A parsed webhook body. */
export type AlertmanagerPayload = z.infer<typeof AlertmanagerPayloadSchema>;

/** One alert of a parsed body. */
export type AlertmanagerAlert = AlertmanagerPayload["alerts"][number];

/** The rule's expression from a Prometheus `generatorURL` (`g0.expr`), when it carries one. */
export function ruleExpression(generatorURL: string): string | undefined {
  if (!URL.canParse(generatorURL)) return undefined;
  return new URL(generatorURL).searchParams.get("g0.expr") ?? undefined;
}

/** Sorted fingerprints of the group's firing alerts: the same set means the same incident state. */
export function firingFingerprints(payload: AlertmanagerPayload): string[] {
  return [
    ...new Set(payload.alerts.filter((alert) => alert.status === "firing").map((alert) => alert.fingerprint)),
  ].sort();
}
