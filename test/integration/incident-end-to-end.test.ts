import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { AgentStateType } from "../../src/graph/state.js";
import type { IncidentView } from "../../src/service/incidents/incidents.js";
import { ALERT_TOKEN, startAlertServer, tempDirectory, type AlertServer } from "../fixtures/alert-server.js";
import { pauseOf } from "../fixtures/mcp-app.js";
import { monitoringBinariesPresent, startMonitoringStack, type MonitoringStack } from "../fixtures/monitoring-stack.js";
import { freePort } from "../fixtures/ports.js";

/**
 * The whole incident path on real components: a Prometheus rule over the test's exporter fires,
 * a real Alertmanager posts the group to opspilot, the demo model investigates with the
 * Prometheus toolset against that Prometheus, an operator silences the alert from the thread,
 * and the recovery resolves the incident. Nothing of Prometheus's or Alertmanager's API is mocked.
 */

// The exporter is served by this test's own process, which the app under test shares: on a busy
// machine a scrape can miss its 1 s timeout, the series goes stale and the alert would resolve and
// fire again, a new incident. \`keep_firing_for\` (Prometheus 2.42) rides out such a gap.
const RULES = `groups:
  - name: payments
    rules:
      - alert: PaymentErrorsHigh
        expr: payment_errors > 5
        keep_firing_for: 5s
        labels: { severity: page }
        annotations: { summary: "payment-service errors above 5" }
`;

const RUNBOOK = `---
title: Payment errors
services: [payment-service]
alerts: [PaymentErrorsHigh]
---
Check the payment gateway's timeouts first; a restart of payment-service clears a stuck pool.
`;

/** Polls until `read` returns a value, or fails naming `what` (and what `state` shows then) after `timeoutMs`. */
async function poll<T>(
  read: () => Promise<T | undefined>,
  what: string,
  state: () => Promise<unknown> = async () => undefined,
  timeoutMs = 40_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; now: ${JSON.stringify(await state().catch(String))}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(!monitoringBinariesPresent)("an alert from a real Prometheus and Alertmanager, end to end", () => {
  const directory = tempDirectory();
  let stack: MonitoringStack;
  let server: AlertServer;

  const incidents = async () =>
    ((await (await server.operator.request("GET", "/api/incidents")).json()) as { incidents: IncidentView[] })
      .incidents;
  const messages = async (threadId: string): Promise<BaseMessage[]> =>
    ((await server.app.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType).messages;
  const runsOf = async (threadId: string) => (await server.app.storage.threadRecords(threadId)).runs.length;
  /** Webhook notifications Alertmanager reports having sent, from its own /metrics. */
  const notificationsSent = async () => {
    const text = await (await fetch(`${stack.alertmanagerUrl}/metrics`)).text();
    const line = text
      .split("\n")
      .find((row) => row.startsWith('alertmanager_notifications_total{integration="webhook"}'));
    return Number(line?.split(" ").at(-1) ?? 0);
  };
  const silences = async () =>
    (await (await fetch(`${stack.alertmanagerUrl}/api/v2/silences`)).json()) as Array<{
      id: string;
      status: { state: string };
      createdBy: string;
      matchers: Array<{ name: string; value: string; isRegex: boolean }>;
    }>;

  beforeAll(async () => {
    const port = await freePort();
    writeFileSync(join(directory.path, "alert-token"), ALERT_TOKEN);
    stack = await startMonitoringStack({
      rules: RULES,
      alertmanagerConfig: [
        // A short repeat_interval: the firing group is posted again every few seconds.
        "route: { receiver: opspilot, group_by: [alertname, service], group_wait: 1s, group_interval: 1s, repeat_interval: 2s }",
        "receivers:",
        "  - name: opspilot",
        "    webhook_configs:",
        `      - url: http://127.0.0.1:${port}/api/alerts/alertmanager`,
        "        send_resolved: true",
        `        http_config: { authorization: { type: Bearer, credentials_file: ${join(directory.path, "alert-token")} } }`,
        "",
      ].join("\n"),
    });
    mkdirSync(join(directory.path, "runbooks"));
    writeFileSync(join(directory.path, "runbooks", "payment-errors.md"), RUNBOOK);
    const config = {
      runbooks: join(directory.path, "runbooks"),
      toolsets: { prometheus: { url: stack.prometheusUrl }, alertmanager: { url: stack.alertmanagerUrl } },
    };
    writeFileSync(join(directory.path, "opspilot.config.json"), JSON.stringify(config));
    server = await startAlertServer(
      directory.path,
      { OPSPILOT_CONFIG: join(directory.path, "opspilot.config.json") },
      { port },
    );
    await server.app.runbooks?.refresh();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await stack?.stop();
    directory.remove();
  });

  it("opens one incident, investigates it in Prometheus, ignores redeliveries, silences on approval, resolves, and remembers it", async () => {
    stack.exporter.set("payment_errors", { service: "payment-service" }, 9);

    // The rule fires and Alertmanager posts the group: one incident, investigated at once.
    const [incident] = await poll(
      async () => {
        const listed = await incidents();
        return listed.length > 0 && listed[0]!.investigation.status === "finished" ? listed : undefined;
      },
      "the incident's investigation to finish",
      incidents,
    );
    expect(incident).toMatchObject({
      source: "alertmanager",
      status: "firing",
      alertname: "PaymentErrorsHigh",
      severity: "page",
      labels: { service: "payment-service" },
      investigation: { stopReason: "final_answer" },
    });
    const threadId = incident!.threadId;
    const thread = await messages(threadId);
    const first = String(thread[0]!.content);
    expect(first).toContain("Rule expression: payment_errors > 5");
    expect(first).toContain('Runbook "Payment errors" (payment-errors.md) lists this alert');

    // The investigation read the real Prometheus: a prometheus_query call and the exporter's value.
    const queries = thread.flatMap((message) =>
      ((message as { tool_calls?: Array<{ name: string; id: string }> }).tool_calls ?? []).filter((call) =>
        call.name.startsWith("prometheus_query"),
      ),
    );
    expect(queries.length).toBeGreaterThan(0);
    const observations = thread
      .filter((message) => message.getType() === "tool")
      .filter((message) => queries.some((call) => call.id === (message as { tool_call_id?: string }).tool_call_id))
      .map((message) => String(message.content));
    expect(observations.some((text) => /"ok":true/.test(text) && /\b9\b/.test(text))).toBe(true);
    expect(String(thread.at(-1)!.content)).toMatch(/\b9\b/);

    // Alertmanager posts the same firing group again: nothing new runs.
    const runs = await runsOf(threadId);
    const sent = await notificationsSent();
    await poll(async () => ((await notificationsSent()) >= sent + 2 ? true : undefined), "two redeliveries");
    await server.intake.worker.idle();
    expect(await runsOf(threadId)).toBe(runs);
    expect(await incidents()).toHaveLength(1);

    // The operator asks to silence it from the incident's thread, and approves the frozen call.
    const asked = await server.operator.run(threadId, "silence this alert for 2 hours");
    const pause = pauseOf(asked);
    expect(pause.calls).toHaveLength(1);
    expect(pause.calls[0]).toMatchObject({ tool: "alertmanager_create_silence" });
    const resumed: RunEvent[] = await server.operator.resume(threadId, {
      decisions: [{ callId: pause.calls[0]!.callId, action: "approve", argsHash: pause.calls[0]!.argsHash }],
    });
    expect(resumed.find((event) => event.type === "tool_result")).toMatchObject({ ok: true });
    const active = (await silences()).filter((silence) => silence.status.state === "active");
    expect(active).toHaveLength(1);
    expect(active[0]!.createdBy).toBe("olivia");
    expect(active[0]!.matchers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "alertname", value: "PaymentErrorsHigh", isRegex: false }),
        expect.objectContaining({ name: "service", value: "payment-service", isRegex: false }),
      ]),
    );
    expect(
      (await fetch(`${stack.alertmanagerUrl}/api/v2/alerts?silenced=true&active=false`).then((r) =>
        r.json(),
      )) as unknown[],
    ).toHaveLength(1);

    // Alertmanager sends no resolution for a silenced alert (prometheus/alertmanager#226): the
    // engineer lifts the silence once the fix is in, and the recovery then resolves the incident.
    await fetch(`${stack.alertmanagerUrl}/api/v2/silence/${active[0]!.id}`, { method: "DELETE" });
    stack.exporter.set("payment_errors", { service: "payment-service" }, 0);
    const resolved = await poll(
      async () => {
        const [listed] = await incidents();
        return listed?.status === "resolved" ? listed : undefined;
      },
      "the incident to resolve",
      incidents,
    );
    expect(resolved.resolvedAt).not.toBeNull();
    await server.intake.worker.idle();
    expect(String((await messages(threadId)).at(-1)!.content)).toContain("resolved");

    // It fires again: the group's next incident, on a thread of its own, starts from the first one's conclusion.
    stack.exporter.set("payment_errors", { service: "payment-service" }, 9);
    const next = await poll(
      async () => {
        const open = (await incidents()).find((listed) => listed.status === "firing");
        return open?.investigation.status === "finished" ? open : undefined;
      },
      "the next incident's investigation to finish",
      incidents,
    );
    expect(next.incidentId).not.toBe(incident!.incidentId);
    expect(next.threadId).not.toBe(threadId);
    const briefing = String((await messages(next.threadId))[0]!.content);
    expect(briefing).toContain("Past incidents like this one (newest first):");
    expect(briefing).toContain(`?thread=${threadId}`);
    expect((await incidents()).map((listed) => listed.status)).toEqual(["firing", "resolved"]);
  }, 120_000);
});
