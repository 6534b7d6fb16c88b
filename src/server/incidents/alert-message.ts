import type { AlertDelivery } from "../../service/incidents/incidents.js";
import { fitMessage } from "../../service/incidents/alert-delivery.js";
import {
  firingFingerprints,
  ruleExpression,
  type AlertmanagerAlert,
  type AlertmanagerPayload,
} from "./alertmanager-payload.js";

/** Alerts listed one by one in a message; the rest are counted. */
const LISTED_ALERTS = 20;

const pairs = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");

/** The earliest start of the group's alerts. */
function earliestStart(alerts: readonly AlertmanagerAlert[]): string {
  return alerts.map((alert) => alert.startsAt).sort()[0] ?? "";
}

/** The latest end of the group's alerts; Alertmanager's zero time (year 1) is no end. */
function latestEnd(alerts: readonly AlertmanagerAlert[]): string | undefined {
  return alerts
    .map((alert) => alert.endsAt ?? "")
    .filter((end) => end !== "" && !end.startsWith("0001-"))
    .sort()
    .at(-1);
}

/** The thread's message for a firing group: labels, annotations, the rule's expression, start time and alerts. */
function firingMessage(payload: AlertmanagerPayload): string {
  const firing = payload.alerts.filter((alert) => alert.status === "firing");
  const first = firing[0] ?? payload.alerts[0]!;
  const alertname = payload.commonLabels.alertname ?? first.labels.alertname ?? "unnamed alert";
  const expression = ruleExpression(first.generatorURL);
  const lines = [
    `Alertmanager alert ${alertname} is firing since ${earliestStart(firing)} (${firing.length} firing alert(s) in the group).`,
    `Labels: ${pairs(payload.commonLabels)}`,
    ...Object.entries(payload.commonAnnotations).map(([name, value]) => `${name}: ${value}`),
    ...(expression ? [`Rule expression: ${expression}`] : []),
    "Alerts:",
    ...firing.slice(0, LISTED_ALERTS).map((alert) => `- ${pairs(alert.labels)} (since ${alert.startsAt})`),
    ...(firing.length > LISTED_ALERTS ? [`- and ${firing.length - LISTED_ALERTS} more`] : []),
    ...(payload.truncatedAlerts > 0 ? [`(${payload.truncatedAlerts} more alerts were cut by Alertmanager)`] : []),
    "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
  ];
  const text = lines.join("\n");
  return fitMessage(text);
}

/** An Alertmanager webhook body as an incident delivery. */
export function alertmanagerDelivery(payload: AlertmanagerPayload): AlertDelivery {
  const labels = payload.commonLabels;
  const alertname = labels.alertname ?? payload.alerts[0]!.labels.alertname ?? "unnamed alert";
  const resolved = payload.status === "resolved";
  return {
    source: "alertmanager",
    groupKey: payload.groupKey,
    status: payload.status,
    alertname,
    ...(labels.severity ? { severity: labels.severity } : {}),
    labels,
    startsAt: earliestStart(payload.alerts),
    ...(resolved && latestEnd(payload.alerts) ? { endsAt: latestEnd(payload.alerts) } : {}),
    fingerprints: resolved ? [] : firingFingerprints(payload),
    message: resolved
      ? `Alertmanager reports ${alertname} resolved: every alert of the group has ended (${pairs(labels)}).`
      : firingMessage(payload),
  };
}
