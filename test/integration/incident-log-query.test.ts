import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentStateType } from "../../src/graph/state.js";
import type { IncidentView } from "../../src/service/incidents/incidents.js";
import {
  ALERT_TOKEN,
  firingFixture,
  startAlertServer,
  tempDirectory,
  type AlertServer,
} from "../fixtures/alert-server.js";
import { observationOf } from "../fixtures/mcp-app.js";
import { startLokiStandin, type LokiStandin } from "../fixtures/loki-standin.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";

const ALERT_QUERY = '{namespace="$namespace", app="$service"} |= "timeout"';
const FIRST_QUERY = '{namespace="payments", app="payment-service"} |= "timeout"';

/** The first message's log line for a tool, parsed: what a model that follows it calls. */
function suggested(text: string, tool: string): Record<string, unknown> | undefined {
  const line = text.split("\n").find((row) => row.startsWith(`- ${tool} `));
  return line ? (JSON.parse(line.slice(`- ${tool} `.length)) as Record<string, unknown>) : undefined;
}

describe("an alert with a service label, investigated with the Loki toolset", () => {
  const directory = tempDirectory();
  let loki: LokiStandin;
  let server: AlertServer;
  const startsAt = new Date(Date.now() - 10 * 60_000).toISOString();

  beforeAll(async () => {
    loki = await startLokiStandin();
    writeFileSync(
      join(directory.path, "opspilot.config.json"),
      JSON.stringify({ toolsets: { loki: { url: loki.url, alertQuery: ALERT_QUERY } } }),
    );
    // The model runs the log query the first message names, then answers from what it read.
    const model = new ScriptedChatModel({
      script: [
        ({ messages }) => {
          const first = messages.find((message) => HumanMessage.isInstance(message));
          const args = suggested(String(first?.content ?? ""), "loki_query");
          return args ? callsMessage([{ name: "loki_query", args, id: "logs1" }]) : answerMessage("No log query.");
        },
        answerMessage("payment-service times out calling bank-gateway since the deploy."),
      ],
      onExhausted: "answer",
    });
    server = await startAlertServer(
      directory.path,
      { OPSPILOT_CONFIG: join(directory.path, "opspilot.config.json") },
      { model },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await loki?.close();
    directory.remove();
  });

  it("puts the configured query, filled from the labels, in the first message, and the first log read runs it", async () => {
    const alert = firingFixture() as { alerts: Array<Record<string, unknown>>; commonLabels: Record<string, string> };
    alert.commonLabels = { ...alert.commonLabels, namespace: "payments" };
    alert.alerts[0] = { ...alert.alerts[0], labels: alert.commonLabels, startsAt };
    const response = await fetch(`${server.url}/api/alerts/alertmanager`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALERT_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(alert),
    });
    expect(response.status).toBe(202);
    await server.intake.worker.kick();
    await server.intake.worker.idle();
    const incident = (
      (await (await server.operator.request("GET", "/api/incidents")).json()) as { incidents: IncidentView[] }
    ).incidents[0]!;
    const messages = (
      (await server.app.graph.getState({ configurable: { thread_id: incident.threadId } })).values as AgentStateType
    ).messages;
    const first = String(messages[0]!.content);
    const lead = new Date(Date.parse(startsAt) - 15 * 60_000).toISOString();
    expect(first).toContain(
      `Logs: start with the log query configured for this alert's labels:\n- loki_query ${JSON.stringify({ query: FIRST_QUERY, start: lead })}`,
    );
    const reads = loki.requests.filter((request) => request.path === "/loki/api/v1/query_range");
    expect(reads[0]!.params).toMatchObject({
      query: FIRST_QUERY,
      start: (BigInt(Date.parse(lead)) * 1_000_000n).toString(),
      direction: "backward",
    });
    expect(observationOf(messages, "logs1")).toMatchObject({
      ok: true,
      data: {
        query: FIRST_QUERY,
        patterns: [
          { level: "error", pattern: "charge failed for order <id>: upstream bank-gateway timeout after <n>" },
        ],
      },
    });
  });
});
