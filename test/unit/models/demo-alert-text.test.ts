import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { alertInThread, labelPairs, readAlert } from "../../../src/demo/model/incident/alert-text.js";
import { alertQueries } from "../../../src/demo/model/incident/incident-plan.js";
import { detectIntent } from "../../../src/demo/model/intent.js";
import { splitComparison, targetUpQuery } from "../../../src/demo/model/promql.js";
import { alertmanagerDelivery } from "../../../src/server/incidents/alert-message.js";
import { AlertmanagerPayloadSchema } from "../../../src/server/incidents/alertmanager-payload.js";

/** The first message the intake writes for the recorded Alertmanager webhook. */
function intakeMessage(change: (payload: Record<string, unknown>) => void = () => {}): string {
  const body = JSON.parse(
    readFileSync(new URL("../../fixtures/alertmanager-webhook-v4-firing.json", import.meta.url), "utf8"),
  ) as Record<string, unknown>;
  change(body);
  return alertmanagerDelivery(AlertmanagerPayloadSchema.parse(body)).message;
}

const PAYMENT_ALERT = [
  "Alertmanager alert PaymentHighErrorRate is firing since 2026-12-01T19:36:44Z (1 firing alert(s) in the group).",
  "Labels: alertname=PaymentHighErrorRate, service=payment-service, severity=critical",
  "summary: payment errors above 0.5/s",
  'Rule expression: rate(http_errors_total{service="payment-service"}[1m]) > 0.5',
  "Alerts:",
  "- alertname=PaymentHighErrorRate, service=payment-service, instance=10.0.0.7:8080 (since 2026-12-01T19:36:44Z)",
  "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
].join("\n");

describe("readAlert", () => {
  it("reads the alert intake's own message for the recorded webhook", () => {
    expect(readAlert(intakeMessage())).toEqual({
      source: "alertmanager",
      alertname: "AlwaysFiring",
      labels: [
        ["alertname", "AlwaysFiring"],
        ["instance", "127.0.0.1:9090"],
        ["job", "self"],
        ["service", "payment-service"],
        ["severity", "critical"],
      ],
      since: "2026-12-01T19:36:44.119Z",
      expression: "up == 1",
      service: "payment-service",
      environment: undefined,
    });
  });

  it("takes the environment from an env label, and never guesses one", () => {
    const withEnv = intakeMessage((body) => {
      (body.commonLabels as Record<string, string>).env = "production";
    });
    expect(readAlert(withEnv)?.environment).toBe("prod");
    const otherEnv = intakeMessage((body) => {
      (body.commonLabels as Record<string, string>).environment = "qa";
    });
    expect(readAlert(otherEnv)?.environment).toBeUndefined();
  });

  it("ignores the runbook and past-incident sections appended after the alert", () => {
    const message = [
      PAYMENT_ALERT,
      'Runbook "Payments" (runbooks/payments.md) lists this alert:\nLabels: team=other\nRule expression: up == 0\nRestart the payment service.',
      "Past incidents like this one (newest first):\n- 2026-11-30 10:00 restarted payment-service",
    ].join("\n\n");
    const alert = readAlert(message)!;
    expect(alert.labels).toEqual([
      ["alertname", "PaymentHighErrorRate"],
      ["service", "payment-service"],
      ["severity", "critical"],
    ]);
    expect(alert.expression).toBe('rate(http_errors_total{service="payment-service"}[1m]) > 0.5');
    expect(detectIntent(message)).toMatchObject({
      kind: "alert",
      language: "en",
      serviceQuery: "payment-service",
      docsQuery: "PaymentHighErrorRate payment-service",
    });
  });

  it("reads a PagerDuty incident's title, start and service, triggered or reopened", () => {
    const message = [
      'PagerDuty incident #1234 "Payment API 5xx" was triggered at 2026-12-01T10:00:00Z.',
      "Title: Payment API 5xx",
      "Service: Payment Service",
      "Urgency: high",
      "Priority: P1",
      "Link: https://acme.pagerduty.com/incidents/Q1",
      "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
    ].join("\n");
    expect(readAlert(message)).toEqual({
      source: "pagerduty",
      alertname: "Payment API 5xx",
      labels: [],
      since: "2026-12-01T10:00:00Z",
      service: "Payment Service",
    });
    const reopened = 'PagerDuty incident Q1ABC "Disk full" was reopened at 2026-12-02T08:00:00Z (created 2026-12-01).';
    expect(readAlert(reopened)).toMatchObject({ alertname: "Disk full", since: "2026-12-02T08:00:00Z" });
    expect(readAlert("PagerDuty incident #7 triggered\nTitle: Disk full on db-1")?.alertname).toBe("Disk full on db-1");
  });

  it.each([
    "Check the payment service errors",
    "Alertmanager reports AlwaysFiring resolved: every alert of the group has ended (alertname=AlwaysFiring).",
    "I saw: Alertmanager alert X is firing since now",
    'PagerDuty reports incident #2 "Disk full" resolved at 2026-12-01T11:00:00Z (service db).',
  ])("is not fooled by %s", (text) => {
    expect(readAlert(text)).toBeUndefined();
  });

  it("finds the latest alert among a thread's earlier messages", () => {
    const followUp = PAYMENT_ALERT.replace("(1 firing alert(s)", "(2 firing alert(s)").replace(
      "service=payment-service, severity",
      "service=payment-service, team=pay, severity",
    );
    expect(alertInThread(["and the logs?", followUp, PAYMENT_ALERT])?.labels).toContainEqual(["team", "pay"]);
    expect(alertInThread(["hello", "restart it"])).toBeUndefined();
  });
});

describe("labelPairs", () => {
  it("keeps a value that holds a comma (a pair starts only at a label name) and drops empty values", () => {
    expect(labelPairs("alertname=Disk, mount=/data, a, b, summary=x=1, 9bad=v, empty=")).toEqual([
      ["alertname", "Disk"],
      ["mount", "/data, a, b"],
      ["summary", "x=1, 9bad=v"],
    ]);
  });
});

describe("PromQL of an alert", () => {
  it.each([
    [
      'rate(http_errors_total{service="payment-service"}[1m]) > 0.5',
      { measured: 'rate(http_errors_total{service="payment-service"}[1m])', operator: ">", threshold: "0.5" },
    ],
    ["up == 0", { measured: "up", operator: "==", threshold: "0" }],
    [
      'sum by (job) (x{a=~"b|c", d!="e>1"}) >= bool 1e3',
      { measured: 'sum by (job) (x{a=~"b|c", d!="e>1"})', operator: ">=", threshold: "1e3" },
    ],
    ["a > b", undefined],
    ['absent(up{job="api"})', undefined],
  ])("splits %s at its comparison", (expression, expected) => {
    expect(splitComparison(expression)).toEqual(expected);
  });

  it("reads the rule and what it measures, narrowing a bare metric to the alert's target", () => {
    expect(alertQueries(readAlert(PAYMENT_ALERT)!)).toEqual([
      'rate(http_errors_total{service="payment-service"}[1m]) > 0.5',
      'rate(http_errors_total{service="payment-service"}[1m])',
    ]);
    expect(alertQueries(readAlert(intakeMessage())!)).toEqual(["up == 1", 'up{instance="127.0.0.1:9090", job="self"}']);
    expect(targetUpQuery([["service", "x"]])).toBeUndefined();
  });

  it("reads only the rule when no label names a service or target, and nothing without a rule or target", () => {
    const noTarget = PAYMENT_ALERT.replace(
      "Labels: alertname=PaymentHighErrorRate, service=payment-service,",
      "Labels: alertname=PaymentHighErrorRate,",
    );
    expect(alertQueries(readAlert(noTarget)!)).toEqual([
      'rate(http_errors_total{service="payment-service"}[1m]) > 0.5',
    ]);
    expect(alertQueries(readAlert('PagerDuty incident #1 "x" triggered\nService: api')!)).toEqual([]);
  });
});
