import type { AlertDelivery } from "../../service/incidents/incidents.js";
import { fitMessage } from "../../service/incidents/alert-delivery.js";
import type { PagerdutyEventKind, PagerdutyIncidentEvent } from "./pagerduty-payload.js";

/** Longest incident title kept as the alert's name; the message carries the whole title. */
const ALERTNAME_CHARS = 200;

/** PagerDuty's urgency as an Alertmanager-style severity: high pages someone now, low waits for working hours. */
const SEVERITY_OF_URGENCY: Readonly<Record<string, string>> = { high: "critical", low: "warning" };

type Incident = PagerdutyIncidentEvent["data"];

/** `#2` when PagerDuty numbered the incident, else its id. */
function incidentName(incident: Incident): string {
  return incident.number === undefined ? incident.id : `#${incident.number}`;
}

/** The service's name, or its id when the reference carries no summary. */
function serviceName(incident: Incident): string {
  return incident.service.summary ?? incident.service.id ?? "unknown service";
}

/** The labels an incident is listed with. */
function labelsOf(incident: Incident): Record<string, string> {
  return {
    service: serviceName(incident),
    ...(incident.urgency ? { urgency: incident.urgency } : {}),
    ...(incident.priority?.summary ? { priority: incident.priority.summary } : {}),
    pagerduty_incident: incidentName(incident),
  };
}

/** The thread's message for a triggered or reopened incident. */
function firingMessage(event: PagerdutyIncidentEvent, kind: "triggered" | "reopened"): string {
  const incident = event.data;
  const opened =
    kind === "triggered"
      ? `was triggered at ${incident.created_at ?? event.occurred_at}`
      : `was reopened at ${event.occurred_at} (created ${incident.created_at ?? "at an unknown time"})`;
  const lines = [
    `PagerDuty incident ${incidentName(incident)} "${incident.title}" ${opened}.`,
    `Title: ${incident.title}`,
    `Service: ${serviceName(incident)}`,
    `Urgency: ${incident.urgency ?? "not given"}`,
    `Priority: ${incident.priority?.summary ?? "none"}`,
    ...(incident.status ? [`Status: ${incident.status}`] : []),
    ...(incident.html_url ? [`Link: ${incident.html_url}`] : []),
    "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
  ];
  const text = lines.join("\n");
  return fitMessage(text);
}

/** The note a resolution leaves in the thread. */
function resolvedMessage(event: PagerdutyIncidentEvent): string {
  const incident = event.data;
  const by = event.agent?.summary ? ` by ${event.agent.summary}` : "";
  const text = `PagerDuty reports incident ${incidentName(incident)} "${incident.title}" resolved${by} at ${event.occurred_at} (service ${serviceName(incident)}).`;
  return fitMessage(text, " ");
}

/**
 * A PagerDuty incident event as an incident delivery: the group is the PagerDuty incident (its id),
 * one fingerprint (the id) while it fires and none once resolved, so a repeated `incident.triggered`
 * changes nothing and `incident.reopened` after a resolution runs a follow-up.
 */
export function pagerdutyDelivery(
  event: PagerdutyIncidentEvent,
  kind: Exclude<PagerdutyEventKind, "ignored">,
): AlertDelivery {
  const incident = event.data;
  const severity = incident.urgency === undefined ? undefined : SEVERITY_OF_URGENCY[incident.urgency];
  const resolved = kind === "resolved";
  return {
    source: "pagerduty",
    groupKey: incident.id,
    status: resolved ? "resolved" : "firing",
    alertname: incident.title.slice(0, ALERTNAME_CHARS),
    ...(severity ? { severity } : {}),
    labels: labelsOf(incident),
    startsAt: incident.created_at ?? event.occurred_at,
    occurredAt: event.occurred_at,
    fingerprints: resolved ? [] : [incident.id],
    message: resolved ? resolvedMessage(event) : firingMessage(event, kind),
  };
}
