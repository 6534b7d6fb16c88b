import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERT_TOKEN, startAlertServer, tempDirectory, type AlertServer } from "../fixtures/alert-server.js";
import { freePort } from "../fixtures/ports.js";

const ALERTMANAGER_BIN = "/usr/bin/prometheus-alertmanager";

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`nothing after ${timeoutMs} ms`);
}

describe.skipIf(!existsSync(ALERTMANAGER_BIN))("a real Alertmanager delivering to opspilot", () => {
  const directory = tempDirectory();
  let server: AlertServer;
  let alertmanager: ChildProcess;
  let alertmanagerUrl: string;

  beforeAll(async () => {
    server = await startAlertServer(directory.path);
    const port = await freePort();
    alertmanagerUrl = `http://127.0.0.1:${port}`;
    writeFileSync(join(directory.path, "token"), ALERT_TOKEN);
    writeFileSync(
      join(directory.path, "alertmanager.yml"),
      [
        "route: { receiver: opspilot, group_by: [alertname], group_wait: 1s, group_interval: 1s, repeat_interval: 1h }",
        "receivers:",
        "  - name: opspilot",
        "    webhook_configs:",
        `      - url: ${server.url}/api/alerts/alertmanager`,
        "        send_resolved: true",
        `        http_config: { authorization: { type: Bearer, credentials_file: ${join(directory.path, "token")} } }`,
        "",
      ].join("\n"),
    );
    alertmanager = spawn(
      ALERTMANAGER_BIN,
      [
        `--config.file=${join(directory.path, "alertmanager.yml")}`,
        `--storage.path=${join(directory.path, "alertmanager")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--cluster.listen-address=",
      ],
      { stdio: "ignore" },
    );
    await eventually(async () =>
      (await fetch(`${alertmanagerUrl}/-/ready`).catch(() => undefined))?.ok ? true : undefined,
    );
  }, 30_000);

  afterAll(async () => {
    if (alertmanager.exitCode === null) {
      const exited = new Promise((resolve) => alertmanager.once("exit", resolve));
      alertmanager.kill("SIGTERM");
      await exited;
    }
    await server.stop();
    directory.remove();
  });

  it("opens one incident for an alert posted to Alertmanager, with the rule's expression in its thread", async () => {
    const alert = {
      labels: { alertname: "PaymentHighErrorRate", service: "payment-service", severity: "critical" },
      annotations: { summary: "payment errors above 5%" },
      generatorURL: "http://prometheus.example:9090/graph?g0.expr=rate%28errors_total%5B5m%5D%29+%3E+0.05&g0.tab=1",
    };
    const posted = await fetch(`${alertmanagerUrl}/api/v2/alerts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([alert]),
    });
    expect(posted.status).toBe(200);
    const listed = await eventually(async () => {
      const response = await server.operator.request("GET", "/api/incidents");
      const { incidents } = (await response.json()) as { incidents: Array<Record<string, unknown>> };
      return incidents.length > 0 ? incidents : undefined;
    });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ alertname: "PaymentHighErrorRate", severity: "critical", status: "firing" });
    await server.intake.worker.idle();
    const thread = await server.operator.thread(listed[0]!.threadId as string);
    const first = (thread.body.messages as Array<{ content: string }>)[0]!;
    expect(first.content).toContain("Rule expression: rate(errors_total[5m]) > 0.05");
    expect(first.content).toContain("summary: payment errors above 5%");
  }, 30_000);
});
