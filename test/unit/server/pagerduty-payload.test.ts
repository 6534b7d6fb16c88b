import { describe, expect, it } from "vitest";
import { pagerdutyDelivery } from "../../../src/server/incidents/pagerduty-message.js";
import {
  eventKindOf,
  freshnessOf,
  PAGERDUTY_CLOCK_SKEW_MS,
  PAGERDUTY_STALE_AFTER_MS,
  PagerdutyIncidentWebhookSchema,
  PagerdutyWebhookSchema,
} from "../../../src/server/incidents/pagerduty-payload.js";
import { DELIVERY_MEMORY_MS } from "../../../src/storage/types.js";
import { triggeredFixture } from "../../fixtures/pagerduty.js";

const HOUR = 3_600_000;
const now = Date.parse("2026-12-02T12:00:00Z");

describe("PagerDuty V3 webhook payload", () => {
  it("parses the documented incident.triggered body", () => {
    const { event } = PagerdutyIncidentWebhookSchema.parse(triggeredFixture());
    expect(event).toMatchObject({ id: "01DEN0K6ZV4HNTPC6Q3LG4ZTWB", event_type: "incident.triggered" });
    expect(event.data).toMatchObject({ id: "Q1PDINC42", number: 42, urgency: "high", priority: { summary: "P1" } });
  });

  it("turns a triggered incident into a firing delivery keyed by the PagerDuty incident id", () => {
    const { event } = PagerdutyIncidentWebhookSchema.parse(triggeredFixture());
    const delivery = pagerdutyDelivery(event, "triggered");
    expect(delivery).toEqual({
      source: "pagerduty",
      groupKey: "Q1PDINC42",
      status: "firing",
      alertname: "Payment service error rate above 5%",
      severity: "critical",
      labels: { service: "payment-service", urgency: "high", priority: "P1", pagerduty_incident: "#42" },
      startsAt: "2026-12-01T19:36:44Z",
      fingerprints: ["Q1PDINC42"],
      message: [
        'PagerDuty incident #42 "Payment service error rate above 5%" was triggered at 2026-12-01T19:36:44Z.',
        "Title: Payment service error rate above 5%",
        "Service: payment-service",
        "Urgency: high",
        "Priority: P1",
        "Status: triggered",
        "Link: https://opspilot-demo.pagerduty.com/incidents/Q1PDINC42",
        "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
      ].join("\n"),
      occurredAt: "2026-12-01T19:36:50.402Z",
    });
  });

  it("resolves with no fingerprints and a note naming who resolved it; low urgency is a warning", () => {
    const body = triggeredFixture();
    body.event.event_type = "incident.resolved";
    body.event.agent = { id: "PUSR1AB", summary: "On-call Engineer", type: "user_reference" };
    body.event.data = { ...body.event.data, urgency: "low", priority: null, status: "resolved" };
    const delivery = pagerdutyDelivery(PagerdutyIncidentWebhookSchema.parse(body).event, "resolved");
    expect(delivery).toMatchObject({ status: "resolved", fingerprints: [], severity: "warning" });
    expect(delivery.labels).toEqual({ service: "payment-service", urgency: "low", pagerduty_incident: "#42" });
    expect(delivery.message).toBe(
      'PagerDuty reports incident #42 "Payment service error rate above 5%" resolved by On-call Engineer at 2026-12-01T19:36:50.402Z (service payment-service).',
    );
  });

  it("fires again when a resolved incident is reopened, saying so", () => {
    const body = triggeredFixture();
    body.event.event_type = "incident.reopened";
    const delivery = pagerdutyDelivery(PagerdutyIncidentWebhookSchema.parse(body).event, "reopened");
    expect(delivery).toMatchObject({ status: "firing", fingerprints: ["Q1PDINC42"], groupKey: "Q1PDINC42" });
    expect(delivery.message.split("\n")[0]).toBe(
      'PagerDuty incident #42 "Payment service error rate above 5%" was reopened at 2026-12-01T19:36:50.402Z (created 2026-12-01T19:36:44Z).',
    );
  });

  it("names the fields an incident event lacks", () => {
    const body = triggeredFixture();
    delete body.event.data.title;
    body.event.data.service = "payment-service";
    const parsed = PagerdutyIncidentWebhookSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual([
      "event.data.title",
      "event.data.service",
    ]);
    expect(PagerdutyWebhookSchema.safeParse({ event: { id: "x" } }).success).toBe(false);
  });

  it("acts on triggered, reopened and resolved and ignores every other event type", () => {
    expect(["incident.triggered", "incident.reopened", "incident.resolved"].map(eventKindOf)).toEqual([
      "triggered",
      "reopened",
      "resolved",
    ]);
    for (const type of ["incident.acknowledged", "incident.annotated", "incident.escalated", "pagey.ping", "x"])
      expect(eventKindOf(type)).toBe("ignored");
  });
});

describe("a delivery's occurred_at", () => {
  const at = (ms: number) => new Date(ms).toISOString();

  it("is fresh up to the window and a little clock skew ahead", () => {
    expect(freshnessOf(at(now - PAGERDUTY_STALE_AFTER_MS + 1_000), now)).toEqual({ fresh: true });
    expect(freshnessOf(at(now + PAGERDUTY_CLOCK_SKEW_MS - 1_000), now)).toEqual({ fresh: true });
    expect(freshnessOf("2026-12-02T11:59:59Z", now)).toEqual({ fresh: true });
  });

  it("is refused older than 96 hours, too far ahead or when it is no ISO 8601 time", () => {
    expect(freshnessOf(at(now - 97 * HOUR), now)).toEqual({
      fresh: false,
      message: `event.occurred_at ${at(now - 97 * HOUR)} is more than 96 hours old.`,
    });
    expect(freshnessOf(at(now + HOUR), now)).toMatchObject({ fresh: false });
    for (const value of ["", "yesterday", "1", "March 7, 2026", "2026-13-45T99:00:00Z"])
      expect(freshnessOf(value, now)).toEqual({ fresh: false, message: "event.occurred_at is not an ISO 8601 time." });
  });

  it("goes stale before its delivery ids are forgotten, so an old body cannot be replayed", () => {
    expect(PAGERDUTY_STALE_AFTER_MS).toBeGreaterThanOrEqual(2 * 48 * HOUR);
    expect(PAGERDUTY_STALE_AFTER_MS + PAGERDUTY_CLOCK_SKEW_MS).toBeLessThan(DELIVERY_MEMORY_MS);
  });
});
