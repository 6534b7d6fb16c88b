import type { Context } from "hono";
import { formatZodIssues } from "../../contracts/formats/zod-issues.js";
import type { Incidents } from "../../service/incidents/incidents.js";
import type { IncidentStore } from "../../storage/types.js";
import type { AppEnv } from "../auth/auth.js";
import { errorResponse, RequestError } from "../http-errors.js";
import { pagerdutyDelivery } from "./pagerduty-message.js";
import {
  eventKindOf,
  freshnessOf,
  PagerdutyIncidentWebhookSchema,
  PagerdutyWebhookSchema,
  WEBHOOK_ID,
} from "./pagerduty-payload.js";
import { verifyPagerdutySignature } from "./pagerduty-signature.js";

/** The source incidents from PagerDuty are stored under; delivery ids are remembered under it too. */
const SOURCE = "pagerduty";

/** What PagerDuty intake is built from. */
export interface PagerdutyIntake {
  /** `OPSPILOT_PAGERDUTY_SECRET`: the subscription's signing secret. */
  secret: string;
  /** Where delivery ids are remembered, so a replay starts nothing (the incident store). */
  deliveries: Pick<IncidentStore, "knowsDelivery" | "rememberDelivery">;
}

/** Decodes the verified bytes as UTF-8 JSON, refusing both bad encodings and bad JSON. */
function parseJson(raw: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch {
    throw new RequestError(400, "invalid_json", "The request body is not valid UTF-8 JSON.");
  }
}

/**
 * `POST /api/alerts/pagerduty`: a PagerDuty V3 webhook. In this order: the signature over the raw
 * body (401), the `X-Webhook-Id` (400), the JSON and its envelope (400), the signed `occurred_at`
 * (422 `stale_delivery`); then event types other than triggered, reopened and resolved answer 202
 * `ignored`, and a delivery whose webhook id or signed event id was seen answers 200 `duplicate`.
 *
 * The ids are remembered after the delivery is applied, never before: a crash in between leaves
 * them unknown, PagerDuty retries (it got no 2xx), and the incident service takes the same
 * delivery again as `unchanged`. Remembering first would let that crash swallow the alert.
 * Remembering the signed event id as well as the unsigned header stops a captured body replayed
 * under a fresh `X-Webhook-Id` from reopening a resolved incident.
 */
export function pagerdutyHandler(incidents: Incidents | undefined, pagerduty: PagerdutyIntake | undefined) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    if (!incidents || !pagerduty)
      return errorResponse(
        c,
        404,
        "intake_off",
        "PagerDuty intake is off: set OPSPILOT_PAGERDUTY_SECRET to turn it on.",
      );
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const verdict = verifyPagerdutySignature({
      body: raw,
      header: c.req.header("x-pagerduty-signature"),
      secret: pagerduty.secret,
    });
    if (!verdict.ok) throw new RequestError(401, "unauthorized", verdict.message);
    const webhookId = c.req.header("x-webhook-id")?.trim();
    if (!webhookId) throw new RequestError(400, "missing_webhook_id", "The X-Webhook-Id header is required.");
    if (!WEBHOOK_ID.test(webhookId))
      throw new RequestError(400, "invalid_webhook_id", "X-Webhook-Id must be 1 to 200 printable ASCII characters.");

    const body = parseJson(raw);
    const envelope = PagerdutyWebhookSchema.safeParse(body);
    if (!envelope.success) throw new RequestError(400, "invalid_payload", formatZodIssues(envelope.error));
    const { event } = envelope.data;
    const now = Date.now();
    const freshness = freshnessOf(event.occurred_at, now);
    if (!freshness.fresh) throw new RequestError(422, "stale_delivery", freshness.message);
    const kind = eventKindOf(event.event_type);
    if (kind === "ignored") return c.json({ outcome: "ignored", eventType: event.event_type }, 202);

    const parsed = PagerdutyIncidentWebhookSchema.safeParse(body);
    if (!parsed.success) throw new RequestError(400, "invalid_payload", formatZodIssues(parsed.error));
    const keys = [`webhook:${webhookId}`, `event:${event.id}`];
    const delivery = pagerdutyDelivery(parsed.data.event, kind);
    const known = await Promise.all(keys.map((key) => pagerduty.deliveries.knowsDelivery(SOURCE, key)));
    if (known.some(Boolean))
      return c.json(
        { incidentId: await incidents.latestIncidentId(SOURCE, delivery.groupKey), outcome: "duplicate" },
        200,
      );
    const { incidentId, outcome } = await incidents.deliver(delivery);
    for (const key of keys) await pagerduty.deliveries.rememberDelivery(SOURCE, key, now);
    return c.json({ incidentId, outcome }, 202);
  };
}
