import { z } from "zod";

/**
 * Oldest `event.occurred_at` taken, in ms: 4 days. PagerDuty retries a failing delivery for up to
 * 48 hours and holds the incident's later deliveries behind it meanwhile, so a delivery may arrive
 * one full retry period late and then need its own; twice 48 hours covers both. It stays below
 * the 7 days delivery ids are remembered (`DELIVERY_MEMORY_MS`), so a body old enough to have lost
 * its remembered ids is refused.
 */
export const PAGERDUTY_STALE_AFTER_MS = 4 * 24 * 60 * 60 * 1000;

/** How far `event.occurred_at` may lie ahead of our clock (clock skew), in ms. */
export const PAGERDUTY_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** What an `X-Webhook-Id` may look like: printable ASCII, at most 200 characters. */
export const WEBHOOK_ID = /^[\x21-\x7e]{1,200}$/;

/** A PagerDuty reference (`service_reference`, `user_reference`, ...). */
const Reference = z.object({ id: z.string().optional(), summary: z.string().optional() });

/** The envelope every V3 webhook carries: one event (https://developer.pagerduty.com/docs/webhooks/overview). */
const EventSchema = z.object({
  id: z.string().min(1).max(200),
  event_type: z.string().min(1).max(200),
  resource_type: z.string().optional(),
  occurred_at: z.string(),
  agent: Reference.nullish(),
  data: z.unknown(),
});

/** A V3 webhook body, whatever its event type. */
export const PagerdutyWebhookSchema = z.object({ event: EventSchema });

/** `event.data` of the incident events (`data.type` is `incident`). */
const IncidentSchema = z.object({
  id: z.string().min(1).max(100),
  type: z.literal("incident").optional(),
  html_url: z.string().optional(),
  number: z.number().int().optional(),
  status: z.string().optional(),
  created_at: z.string().optional(),
  title: z.string().min(1),
  service: Reference,
  urgency: z.string().optional(),
  priority: Reference.nullish(),
});

/** A V3 webhook body of an incident event. */
export const PagerdutyIncidentWebhookSchema = z.object({ event: EventSchema.extend({ data: IncidentSchema }) });

/** A parsed webhook body. */
export type PagerdutyWebhook = z.infer<typeof PagerdutyWebhookSchema>;

/** A parsed incident event. */
export type PagerdutyIncidentEvent = z.infer<typeof PagerdutyIncidentWebhookSchema>["event"];

/** What an event type means for the incident: it fires, it ended, or nothing we act on. */
export type PagerdutyEventKind = "triggered" | "reopened" | "resolved" | "ignored";

/** The kind of an `event.event_type`: acknowledgements, notes, escalations, pings and the rest are ignored. */
export function eventKindOf(eventType: string): PagerdutyEventKind {
  switch (eventType) {
    case "incident.triggered":
      return "triggered";
    case "incident.reopened":
      return "reopened";
    case "incident.resolved":
      return "resolved";
    default:
      return "ignored";
  }
}

/** Whether a delivery's signed `event.occurred_at` is recent enough to act on. */
export type Freshness = { fresh: true } | { fresh: false; message: string };

/** Refuses an `occurred_at` that is no ISO 8601 time, older than the window, or ahead of our clock. */
export function freshnessOf(occurredAt: string, now: number): Freshness {
  // Date.parse alone takes forms such as "1" or "March 7"; an ISO 8601 date and time is required.
  const time = /^\d{4}-\d{2}-\d{2}T/.test(occurredAt) ? Date.parse(occurredAt) : Number.NaN;
  if (Number.isNaN(time)) return { fresh: false, message: "event.occurred_at is not an ISO 8601 time." };
  if (time > now + PAGERDUTY_CLOCK_SKEW_MS)
    return { fresh: false, message: `event.occurred_at ${occurredAt} lies in the future.` };
  if (now - time > PAGERDUTY_STALE_AFTER_MS)
    return {
      fresh: false,
      message: `event.occurred_at ${occurredAt} is more than ${PAGERDUTY_STALE_AFTER_MS / 3_600_000} hours old.`,
    };
  return { fresh: true };
}
