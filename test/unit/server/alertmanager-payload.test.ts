import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  AlertmanagerPayloadSchema,
  firingFingerprints,
  ruleExpression,
} from "../../../src/server/incidents/alertmanager-payload.js";
import { alertmanagerDelivery } from "../../../src/server/incidents/alert-message.js";

const fixture = JSON.parse(
  readFileSync(new URL("../../fixtures/alertmanager-webhook-v4-firing.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

describe("Alertmanager webhook payload", () => {
  it("parses the body a real Alertmanager posted", () => {
    const payload = AlertmanagerPayloadSchema.parse(fixture);
    expect(payload.groupKey).toBe("{}:{}");
    expect(payload.truncatedAlerts).toBe(0);
    expect(firingFingerprints(payload)).toEqual(["1f6da059a6856f69"]);
    expect(ruleExpression(payload.alerts[0]!.generatorURL)).toBe("up == 1");
  });

  it("turns it into a delivery whose message carries labels, annotations, the expression and the start", () => {
    const delivery = alertmanagerDelivery(AlertmanagerPayloadSchema.parse(fixture));
    expect(delivery).toMatchObject({
      source: "alertmanager",
      status: "firing",
      alertname: "AlwaysFiring",
      severity: "critical",
      startsAt: "2026-12-01T19:36:44.119Z",
      fingerprints: ["1f6da059a6856f69"],
    });
    expect(delivery.message).toContain("service=payment-service");
    expect(delivery.message).toContain("summary: test alert");
    expect(delivery.message).toContain("Rule expression: up == 1");
    expect(delivery.message).toContain("firing since 2026-12-01T19:36:44.119Z");
  });

  it("refuses another payload version, naming it", () => {
    const parsed = AlertmanagerPayloadSchema.safeParse({ ...fixture, version: "3" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('version must be "4", not "3"');
  });

  it("finds no expression in a generator URL without one", () => {
    expect(ruleExpression("http://prometheus.example:9090/graph")).toBeUndefined();
    expect(ruleExpression("not a url")).toBeUndefined();
  });
});
