import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { AgentStateType } from "../../src/graph/state.js";
import type { IncidentView } from "../../src/service/incidents/incidents.js";
import type { IncidentTimeline } from "../../src/service/postmortem/timeline-entry.js";
import { ALERT_TOKEN, startAlertServer, tempDirectory, type AlertServer } from "../fixtures/alert-server.js";
import { pauseOf } from "../fixtures/mcp-app.js";
import { monitoringBinariesPresent, startMonitoringStack, type MonitoringStack } from "../fixtures/monitoring-stack.js";
import { freePort } from "../fixtures/ports.js";
import { startWebhookReceiver, type WebhookReceiver } from "../fixtures/webhook-receiver.js";

/**
 * An incident silenced from its thread lives to its end on real components: Alertmanager sends no
 * resolved notice for a silenced alert (prometheus/alertmanager#226), so the `incident-reconcile`
 * job reads Alertmanager's API, resolves the incident "resolved while silenced" and sends the
 * resolved notice; the next incident of the alert starts from the first one's diagnosis.
 */

// keep_firing_for rides out a missed scrape on a busy machine (see incident-end-to-end.test.ts).
const RULES = `groups:
  - name: payments
    rules:
      - alert: PaymentErrorsHigh
        expr: payment_errors > 5
        keep_firing_for: 5s
        labels: { severity: page }
        annotations: { summary: "payment-service errors above 5" }
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

describe.skipIf(!monitoringBinariesPresent)(
  "a silenced incident's end, with a real Prometheus and Alertmanager",
  () => {
    const directory = tempDirectory();
    let stack: MonitoringStack;
    let server: AlertServer;
    let receiver: WebhookReceiver;

    const incidents = async () =>
      ((await (await server.operator.request("GET", "/api/incidents")).json()) as { incidents: IncidentView[] })
        .incidents;
    const messages = async (threadId: string): Promise<BaseMessage[]> =>
      ((await server.app.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType).messages;
    /** Alerts of the rule Alertmanager lists now (resolved ones it leaves out), with their state. */
    const listedAlerts = async () =>
      (await (
        await fetch(
          `${stack.alertmanagerUrl}/api/v2/alerts?filter=${encodeURIComponent('alertname="PaymentErrorsHigh"')}`,
        )
      ).json()) as Array<{ fingerprint: string; status: { state: string; silencedBy: string[] } }>;

    beforeAll(async () => {
      const port = await freePort();
      receiver = await startWebhookReceiver();
      writeFileSync(join(directory.path, "alert-token"), ALERT_TOKEN);
      stack = await startMonitoringStack({
        rules: RULES,
        alertmanagerConfig: [
          // Alertmanager never sent the silenced alert's resolution, so its notification log still holds the group
          // as firing: the alert's next firing is posted only at repeat_interval, short here.
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
      const config = {
        toolsets: { prometheus: { url: stack.prometheusUrl }, alertmanager: { url: stack.alertmanagerUrl } },
      };
      writeFileSync(join(directory.path, "opspilot.config.json"), JSON.stringify(config));
      server = await startAlertServer(
        directory.path,
        {
          OPSPILOT_CONFIG: join(directory.path, "opspilot.config.json"),
          OPSPILOT_INCIDENT_WEBHOOK: receiver.url,
          OPSPILOT_PUBLIC_URL: "https://ops.example.com/",
          // Short, so the test waits seconds; the default is a minute.
          OPSPILOT_INCIDENT_RECONCILE_INTERVAL: "1s",
        },
        { port },
      );
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await stack?.stop();
      await receiver?.close();
      directory.remove();
    });

    it("resolves the silenced incident once its alert stops firing, sends the resolved notice, and remembers the diagnosis", async () => {
      expect(server.app.jobs.jobs()).toContain("incident-reconcile");
      stack.exporter.set("payment_errors", { service: "payment-service" }, 9);
      const [incident] = await poll(
        async () => {
          const listed = await incidents();
          return listed[0]?.investigation.status === "finished" ? listed : undefined;
        },
        "the incident's investigation to finish",
        incidents,
      );
      expect(incident).toMatchObject({ status: "firing", silencedAt: null, silenceIds: [], resolution: null });
      const threadId = incident!.threadId;
      const investigated = await messages(threadId);
      const diagnosis = String(investigated.at(-1)!.content);
      expect(diagnosis).toMatch(/^\[demo model\] Alert PaymentErrorsHigh on payment-service/);
      // The investigation's reads of the real Prometheus: the evidence its diagnosis rests on.
      const reads = investigated.flatMap((message) =>
        ((message as { tool_calls?: Array<{ name: string; id: string }> }).tool_calls ?? []).filter(
          (call) => call.name === "prometheus_query",
        ),
      );
      expect(reads.length).toBeGreaterThan(0);

      // The operator silences it from the thread and approves: the incident shows silenced at once.
      const pause = pauseOf(await server.operator.run(threadId, "silence this alert for 2 hours"));
      expect(pause.calls[0]).toMatchObject({ tool: "alertmanager_create_silence" });
      const resumed: RunEvent[] = await server.operator.resume(threadId, {
        decisions: [{ callId: pause.calls[0]!.callId, action: "approve", argsHash: pause.calls[0]!.argsHash }],
      });
      expect(resumed.find((event) => event.type === "tool_result")).toMatchObject({ ok: true });
      const silenceAnswer = String((await messages(threadId)).at(-1)!.content);
      expect(silenceAnswer).toMatch(/^\[demo model\] Silenced PaymentErrorsHigh .*silence id /);
      const silenceId = /silence id ([\w-]+)/.exec(silenceAnswer)![1]!;
      const silenced = await poll(
        async () => {
          const [listed] = await incidents();
          return listed?.status === "silenced" ? listed : undefined;
        },
        "the incident to show silenced",
        incidents,
      );
      expect(silenced).toMatchObject({ incidentId: incident!.incidentId, silenceIds: [silenceId], resolvedAt: null });
      // Alertmanager says the same: the alert is suppressed by that silence.
      expect((await listedAlerts()).map((alert) => alert.status)).toEqual([
        expect.objectContaining({ state: "suppressed", silencedBy: [silenceId] }),
      ]);

      // The fix lands: the alert stops firing. Alertmanager sends no resolution of a silenced alert; the job resolves it.
      stack.exporter.set("payment_errors", { service: "payment-service" }, 0);
      const resolved = await poll(
        async () => {
          const [listed] = await incidents();
          return listed?.status === "resolved" ? listed : undefined;
        },
        "the reconciliation to resolve the incident",
        incidents,
      );
      expect(resolved).toMatchObject({
        incidentId: incident!.incidentId,
        resolution: "resolved_while_silenced",
        silenceIds: [silenceId],
      });
      expect(resolved.resolvedAt).not.toBeNull();
      expect(await listedAlerts()).toEqual([]);
      await server.intake.worker.idle();
      expect(String((await messages(threadId)).at(-1)!.content)).toBe(
        `PaymentErrorsHigh resolved while silenced (silence ${silenceId}): Alertmanager no longer lists any of its alerts. ` +
          "Alertmanager sends no resolved notice for a silenced alert, so opspilot checked its API.",
      );

      // The resolved notice reaches the receiver once, after the answers' notices.
      await poll(
        async () => (receiver.bodies.some((body) => body.event === "resolved") ? true : undefined),
        "the resolved notice",
        async () => receiver.bodies,
      );
      expect(receiver.bodies.map((body) => body.event)).toEqual(["answered", "paused", "answered", "resolved"]);
      expect(receiver.bodies.at(-1)).toEqual({
        type: "incident",
        event: "resolved",
        incidentId: incident!.incidentId,
        source: "alertmanager",
        alertname: "PaymentErrorsHigh",
        severity: "page",
        status: "resolved",
        threadId,
        runId: null,
        link: `https://ops.example.com/?thread=${threadId}`,
        stopReason: null,
        resolution: "resolved_while_silenced",
        resolvedAt: resolved.resolvedAt,
        summary: `PaymentErrorsHigh resolved while silenced (silence ${silenceId}): Alertmanager no longer reports its alerts.`,
        postmortem: `https://ops.example.com/api/incidents/${incident!.incidentId}/postmortem`,
      });

      // The timeline holds each of those, with their times, in order.
      const timeline = (await (
        await server.operator.request("GET", `/api/incidents/${incident!.incidentId}/timeline`)
      ).json()) as IncidentTimeline;
      const kinds = timeline.entries.map((entry) => entry.kind);
      expect(timeline.status).toBe("resolved");
      expect(kinds[0]).toBe("alert");
      for (const kind of ["step", "conclusion", "pause", "answer", "action", "silenced", "resolved", "notice"])
        expect(kinds).toContain(kind);
      expect(timeline.entries.find((entry) => entry.kind === "answer")).toMatchObject({
        by: "olivia",
        action: "approve",
      });
      expect(timeline.entries.find((entry) => entry.kind === "resolved")).toMatchObject({
        at: resolved.resolvedAt,
        resolution: "resolved_while_silenced",
      });
      const times = timeline.entries.map((entry) => entry.at);
      expect([...times].sort()).toEqual(times);
      // The postmortem draft names the approver and cites the call id of the query result it states.
      const postmortem = await (
        await server.operator.request("GET", `/api/incidents/${incident!.incidentId}/postmortem`)
      ).text();
      expect(postmortem).toContain("approved by olivia (operator)");
      expect(postmortem).toContain(`[\`${reads[0]!.id}\`]`);
      expect(postmortem).toContain("Resolved while silenced");

      // The engineer lifts the silence; the alert fires again: the next incident starts from the first one's diagnosis.
      await fetch(`${stack.alertmanagerUrl}/api/v2/silence/${silenceId}`, { method: "DELETE" });
      stack.exporter.set("payment_errors", { service: "payment-service" }, 9);
      const next = await poll(
        async () => (await incidents()).find((listed) => listed.status === "firing"),
        "the next incident",
        incidents,
      );
      expect(next.incidentId).not.toBe(incident!.incidentId);
      const briefing = String((await messages(next.threadId))[0]!.content);
      const past = briefing.slice(briefing.indexOf("Past incidents like this one (newest first):"));
      expect(past).toContain(`https://ops.example.com/?thread=${threadId}`);
      // The diagnosis, whitespace folded, as the section keeps it; not the silence's report.
      expect(past).toContain(diagnosis.replace(/\s+/g, " ").trim().slice(0, 120));
      expect(past).not.toContain("Silenced PaymentErrorsHigh");
      expect(past).toContain(`\n  Evidence: prometheus_query [${reads[0]!.id}] showed {"query":"payment_errors > 5"`);
      expect(past).toMatch(
        new RegExp(`\\n {2}Done: alertmanager_create_silence \\[[\\w-]+\\], approved by olivia, ok: .*${silenceId}`),
      );
    }, 120_000);
  },
);
