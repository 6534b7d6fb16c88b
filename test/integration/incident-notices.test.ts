import { join } from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { startAlertIntake, type RunningIntake } from "../../src/server/incidents/intake.js";
import { currentRolesOf, type ServerAuth } from "../../src/server/auth/auth.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import type { IncidentAnswer } from "../../src/service/incidents/reports.js";
import { defineTool } from "../../src/tools/types.js";
import { ALERT_TOKEN, API_TOKENS, firingFixture, tempDirectory } from "../fixtures/alert-server.js";
import { ApiClient } from "../fixtures/http.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptedCall } from "../fixtures/scripted-model.js";
import { testTools } from "../fixtures/test-tools.js";
import { startWebhookReceiver, type WebhookReceiver } from "../fixtures/webhook-receiver.js";

const PUBLIC_URL = "https://ops.example.com/";
/** A GitHub token a tool hands back: the observation masks it, so no notice may carry it. */
const CANARY = "ghp_Zq8mR2vT6yB1nK4wX9cL3pH7sD5fJ0aG2eUi";

/** Looks the service up (its config holds a token), proposes a risky write, then answers with what it found. */
function investigate({ messages }: ScriptedCall) {
  const last = messages.at(-1);
  if (!last || !ToolMessage.isInstance(last))
    return callsMessage([{ name: "read_config", args: { service: "payment-service" } }]);
  if (last.name === "read_config")
    return callsMessage([{ name: "write_high", args: { target: "payment-service", environment: "staging" } }]);
  const found = messages.find((message) => ToolMessage.isInstance(message) && message.name === "read_config");
  return answerMessage(`Findings: ${String(found?.content)}. The restart was not made.`);
}

describe("incident notices", { timeout: 30_000 }, () => {
  const directory = tempDirectory();
  let receiver: WebhookReceiver;
  let app: App;
  let intake: RunningIntake;
  let server: RunningServer;
  let operator: ApiClient;
  let threadId: string;
  let lookups = 0;
  const answers: IncidentAnswer[] = [];
  const logged: string[] = [];

  beforeAll(async () => {
    // The pause notice fails once and is retried; the answer's notice is held and never answered.
    receiver = await startWebhookReceiver([500, 200, "hang"]);
    const auth: ServerAuth = { tokens: loadEnv({ OPSPILOT_API_TOKENS: API_TOKENS }).OPSPILOT_API_TOKENS };
    const readConfig = defineTool({
      name: "read_config",
      description: "Reads a service's deploy config.",
      schema: z.object({ service: z.string().describe("The service") }),
      readOnly: true,
      risk: "low",
      timeoutMs: 2_000,
      run: (args) => {
        lookups += 1;
        return Promise.resolve({ service: args.service, deployToken: CANARY, version: "v2.3.1" });
      },
    });
    const logger = { error: (message: string) => logged.push(message) };
    app = createApp({
      env: loadEnv({
        OPSPILOT_ALERT_TOKEN: ALERT_TOKEN,
        OPSPILOT_API_TOKENS: API_TOKENS,
        OPSPILOT_INCIDENT_WEBHOOK: receiver.url,
        OPSPILOT_PUBLIC_URL: PUBLIC_URL,
      }),
      dbPath: join(directory.path, "opspilot.sqlite"),
      model: new ScriptedChatModel({ script: Array.from({ length: 20 }, () => investigate) }),
      tools: () => [readConfig, ...testTools()],
      currentRoles: currentRolesOf(auth),
      logger,
      onIncidentAnswer: (report) => void answers.push(report),
      sweepMs: { incidents: 100 },
    });
    intake = startAlertIntake(app, logger);
    server = await startServer({
      runtime: app.runtime,
      auth,
      host: "127.0.0.1",
      port: 0,
      logger,
      rateLimitPerMinute: 0,
      alerts: intake.alerts,
    });
    app.start();
    operator = new ApiClient(server.url, "operator-token");
  });
  afterAll(async () => {
    await receiver.close();
    directory.remove();
  });

  /** Rejects every waiting call of the thread's pause, as the operator; returns the resume's events. */
  async function rejectPause(thread: string) {
    const { body } = await operator.thread(thread);
    expect(body.status).toBe("interrupted");
    const pause = body.interrupt as { calls: Array<{ callId: string; argsHash: string }> };
    const decisions = pause.calls.map(({ callId, argsHash }) => ({ callId, argsHash, action: "reject" }));
    return operator.resume(thread, { decisions });
  }

  it("sends no incident notice for an operator's own thread that pauses and answers", async () => {
    const own = await operator.createThread();
    const events = await operator.run(own, "check payment-service");
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
    expect((await rejectPause(own)).at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    // Checked once more at the end, after the app closed and every notice under way settled.
    expect(receiver.bodies).toEqual([]);
  });

  it("announces the investigation's pause once, with the incident, the waiting call and the thread's link", async () => {
    const response = await fetch(`${server.url}/api/alerts/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ALERT_TOKEN}` },
      body: JSON.stringify(firingFixture()),
    });
    expect(response.status).toBe(202);
    const { incidentId } = (await response.json()) as { incidentId: string };
    threadId = `incident-${incidentId}`;
    await intake.worker.idle();
    // The first attempt got a 500; the retry delivered the same notice.
    await receiver.received(2);
    const pause = (await operator.eventsAfter(threadId, 0)).find((event) => event.type === "loop_interrupt");
    if (pause?.type !== "loop_interrupt") throw new Error("the investigation did not pause");
    const notice = {
      type: "incident",
      event: "paused",
      incidentId,
      source: "alertmanager",
      alertname: "AlwaysFiring",
      severity: "critical",
      status: "firing",
      threadId,
      runId: pause.runId,
      link: `https://ops.example.com/?thread=${threadId}`,
      stopReason: "interrupted",
      summary: `${pause.reason}\n• write_high {"target":"payment-service","environment":"staging"}`,
    };
    expect(receiver.bodies).toEqual([notice, notice]);
  });

  it("announces the answer once an operator answers the pause, masked as the events are, without waiting for the receiver", async () => {
    const events = await rejectPause(threadId);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    await receiver.received(3);
    // The receiver holds the notice unanswered, and the thread is already free for the next message.
    expect((await operator.thread(threadId)).body.status).toBe("idle");
    const thread = (await operator.thread(threadId)).body;
    const last = (thread.messages as Array<{ role: string; content: string }>).at(-1)!;
    expect(last.role).toBe("assistant");
    expect(last.content).toMatch(/^Findings: .*"version":"v2\.3\.1".*\. The restart was not made\.$/);
    // The tool really handed the token back, here and on the operator's own thread.
    expect(lookups).toBe(2);
    expect(last.content).toContain('"deployToken":"[');
    expect(receiver.bodies[2]).toEqual({
      ...receiver.bodies[0],
      event: "answered",
      stopReason: "final_answer",
      summary: last.content,
    });
    expect(answers).toEqual([
      expect.objectContaining({ threadId, stopReason: "final_answer", answer: last.content, runId: events[0]!.runId }),
    ]);
    expect(answers[0]!.incident.alertname).toBe("AlwaysFiring");
    expect(JSON.stringify(receiver.bodies)).not.toContain(CANARY);
    expect(JSON.stringify(receiver.bodies)).not.toContain("Zq8mR2vT6yB1nK4wX9cL3pH7sD5fJ0aG2eUi");
  });

  it("closes within the grace while the receiver still holds a notice, having sent nothing else", async () => {
    const started = Date.now();
    await server.close();
    await intake.worker.close();
    await app.close();
    // Without the abort it would wait out the held attempt's 5 s time limit, then retry.
    expect(Date.now() - started).toBeLessThan(4_900);
    expect(receiver.bodies.map((body) => [body.event, body.threadId])).toEqual([
      ["paused", threadId],
      ["paused", threadId],
      ["answered", threadId],
    ]);
    expect(answers).toHaveLength(1);
    expect(logged).toEqual([
      expect.stringMatching(/^incident webhook: could not announce the answer of run .+ of incident inc_\w+ \(/),
    ]);
  });
});
