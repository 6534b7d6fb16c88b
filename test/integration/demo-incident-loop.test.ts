import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { parseConfig } from "../../src/config/file.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { checkPairing, pairingHolds } from "../../src/graph/calls/pairing.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";

const RULE = 'rate(http_errors_total{service="payment-service"}[1m]) > 0.5';
const MEASURED = 'rate(http_errors_total{service="payment-service"}[1m])';
const SILENCE_ID = "3c1e6a0d-5b7f-4f7e-9a55-2f4f9d7c8e11";
const ALERT = [
  "Alertmanager alert PaymentHighErrorRate is firing since 2026-12-01T19:36:44Z (1 firing alert(s) in the group).",
  "Labels: alertname=PaymentHighErrorRate, env=prod, service=payment-service, severity=critical",
  "summary: payment errors above 0.5/s",
  `Rule expression: ${RULE}`,
  "Alerts:",
  "- alertname=PaymentHighErrorRate, env=prod, service=payment-service, severity=critical, instance=10.0.0.7:8080 (since 2026-12-01T19:36:44Z)",
  "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
].join("\n");

/** What the fake Prometheus and Alertmanager were asked. */
const asked = { queries: [] as string[], silences: [] as Array<Record<string, unknown>> };

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += String(chunk);
  return text;
}

/** Prometheus's `/api/v1/query` and Alertmanager's `/api/v2/silences` on loopback, answering as the real ones do. */
function startMonitoring(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (url.pathname === "/api/v1/query") {
        const query = url.searchParams.get("query") ?? "";
        asked.queries.push(query);
        const sample = (instance: string, value: string) => ({
          metric: { instance, service: "payment-service" },
          value: [1_796_240_400, value],
        });
        const result =
          query === RULE
            ? [sample("10.0.0.7:8080", "0.73")]
            : [sample("10.0.0.7:8080", "0.73"), sample("10.0.0.8:8080", "0.12")];
        return json(200, { status: "success", data: { resultType: "vector", result } });
      }
      if (url.pathname === "/api/v2/silences" && request.method === "GET") return json(200, []);
      if (url.pathname === "/api/v2/silences" && request.method === "POST") {
        asked.silences.push(JSON.parse(await bodyOf(request)) as Record<string, unknown>);
        return json(200, { silenceID: SILENCE_ID });
      }
      json(404, { error: "not found" });
    })();
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${address.port}` });
    }),
  );
}

const operator = { id: "olivia", role: "operator" };
const events = (type: string, all: RunEvent[]) => all.filter((event) => event.type === type);
const answerOf = (all: RunEvent[]) => (events("assistant_message", all).at(-1) as { content: string }).content;

describe("the demo model in an incident's thread, with Prometheus and Alertmanager configured", () => {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-demo-incident-"));
  let monitoring: { server: Server; url: string };
  let app: App;

  beforeAll(async () => {
    monitoring = await startMonitoring();
    const env = loadEnv({ OPSPILOT_DB: join(directory, "demo.sqlite") });
    const toolsets = { prometheus: { url: monitoring.url }, alertmanager: { url: monitoring.url } };
    app = createApp({ env, model: new DemoChatModel(), config: parseConfig({ toolsets }, {}) });
  });
  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => monitoring.server.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it("investigates the alert by reading first, then pauses a silence with frozen matchers and answers with its id", async () => {
    const alertUser = app.env.OPSPILOT_ALERT_USER;
    const threadId = await app.runtime.createThread(alertUser);

    // The investigation: reads only, all at once, then an answer quoting what Prometheus returned.
    const investigation = await collectEvents(
      await app.runtime.startRun({ threadId, message: ALERT, user: alertUser }),
    );
    const reads = events("tool_call", investigation).map((event) => {
      const { tool, args } = event as unknown as { tool: string; args: Record<string, unknown> };
      return { tool, args };
    });
    expect(reads).toMatchObject([
      { tool: "prometheus_query", args: { query: RULE } },
      { tool: "prometheus_query", args: { query: MEASURED } },
      { tool: "search_docs", args: { query: "PaymentHighErrorRate payment-service" } },
      { tool: "search_logs", args: { service: "payment-service", level: "ERROR", environment: "prod" } },
    ]);
    expect(events("loop_interrupt", investigation)).toEqual([]);
    expect(investigation.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(asked.queries).toEqual([RULE, MEASURED]);
    expect(events("tool_result", investigation).every((event) => (event as { ok: boolean }).ok)).toBe(true);
    const investigated = answerOf(investigation);
    expect(investigated).toContain(
      `\`${RULE}\` still holds now: {instance="10.0.0.7:8080", service="payment-service"} = 0.73`,
    );
    expect(investigated).toContain('{instance="10.0.0.8:8080", service="payment-service"} = 0.12');
    expect(investigated).toContain("payment-service in prod logged");
    expect(investigated).toContain("Next step:");

    // The on-call operator asks for a silence in the same thread: it waits for approval.
    const asking = await collectEvents(
      await app.runtime.startRun({ threadId, message: "silence this alert for 2 hours", user: operator }),
    );
    const pause = events("loop_interrupt", asking)[0] as RunEvent & PauseValue;
    const matchers = [
      { name: "alertname", value: "PaymentHighErrorRate", isRegex: false },
      { name: "env", value: "prod", isRegex: false },
      { name: "service", value: "payment-service", isRegex: false },
    ];
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ tool: "alertmanager_create_silence", args: { matchers, durationMinutes: 120 } }],
    });
    expect(String(pause.calls[0]!.args.comment)).toContain("PaymentHighErrorRate");
    expect(asked.silences).toEqual([]);

    const approved = await collectEvents(
      await app.runtime.resumeRun({
        threadId,
        user: operator,
        resume: {
          decisions: [{ callId: pause.calls[0]!.callId, action: "approve", argsHash: pause.calls[0]!.argsHash }],
        },
      }),
    );
    expect(approved.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(asked.silences).toHaveLength(1);
    const silence = asked.silences[0]!;
    expect(silence.matchers).toEqual(matchers.map((matcher) => ({ ...matcher, isEqual: true })));
    expect(silence.createdBy).toBe("olivia");
    expect(Date.parse(String(silence.endsAt)) - Date.parse(String(silence.startsAt))).toBe(120 * 60_000);
    expect(String(silence.comment)).toMatch(
      /^Silenced for 2 hours as asked in the opspilot incident thread of PaymentHighErrorRate/,
    );
    expect(answerOf(approved)).toContain(`silence id ${SILENCE_ID}`);

    const state = await app.graph.getState({ configurable: { thread_id: threadId } });
    expect(pairingHolds(checkPairing(state.values.messages))).toBe(true);
  });
});
