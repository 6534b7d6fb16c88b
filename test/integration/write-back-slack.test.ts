import { ToolMessage } from "@langchain/core/messages";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import { currentRolesOf } from "../../src/server/auth/auth.js";
import { startAlertIntake, type RunningIntake } from "../../src/server/incidents/intake.js";
import { slackIntakeOf } from "../../src/server/slack/intake.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { ALERT_TOKEN, API_TOKENS, firingFixture, tempDirectory } from "../fixtures/alert-server.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptedCall } from "../fixtures/scripted-model.js";
import { slackClicker, startSlack, type Button, type SlackStandIn } from "../fixtures/slack.js";
import { SLACK_BOT_TOKEN, startSlackApi, type SlackApiStandIn } from "../fixtures/slack-api-standin.js";
import { testTools } from "../fixtures/test-tools.js";

const SECRET = "slack-signing-secret-0123456789abcdef";
const OLIVIA = "U0OLIVIA1";

/** Proposes the risky write, then reports what it did. */
function investigate({ messages }: ScriptedCall) {
  const last = messages.at(-1);
  if (!last || !ToolMessage.isInstance(last))
    return callsMessage([{ name: "write_high", args: { target: "payment-service", environment: "staging" } }]);
  return answerMessage("Findings: the pool was exhausted; write_high freed it.");
}

/** The alert as Alertmanager sends it once it stopped firing. */
function resolvedFixture() {
  const body = firingFixture() as { status: string; alerts: Array<Record<string, unknown>> };
  return {
    ...body,
    status: "resolved",
    alerts: body.alerts.map((alert) => ({ ...alert, status: "resolved", endsAt: new Date().toISOString() })),
  };
}

describe("an incident's Slack thread through the bot token", { timeout: 30_000 }, () => {
  const directory = tempDirectory();
  let slackApi: SlackApiStandIn;
  let responses: SlackStandIn;
  let app: App;
  let intake: RunningIntake;
  let slackIntake: NonNullable<ReturnType<typeof slackIntakeOf>>;
  let server: RunningServer;
  let incidentId: string;
  const logged: string[] = [];

  beforeAll(async () => {
    slackApi = await startSlackApi();
    responses = await startSlack();
    const env = loadEnv({
      OPSPILOT_ALERT_TOKEN: ALERT_TOKEN,
      OPSPILOT_API_TOKENS: API_TOKENS,
      OPSPILOT_PUBLIC_URL: "https://ops.example.com/",
      OPSPILOT_SLACK_SIGNING_SECRET: SECRET,
      OPSPILOT_SLACK_BOT_TOKEN: SLACK_BOT_TOKEN,
      OPSPILOT_SLACK_CHANNEL: "#incidents",
      OPSPILOT_SLACK_API_URL: slackApi.apiUrl,
    });
    const auth = { tokens: env.OPSPILOT_API_TOKENS };
    const currentRoles = currentRolesOf(auth);
    const config = parseConfig({ chat: { slack: { users: { [OLIVIA]: "olivia" } } } }, {});
    const logger = { error: (message: string) => logged.push(message) };
    app = createApp({
      env,
      config,
      dbPath: join(directory.path, "opspilot.sqlite"),
      model: new ScriptedChatModel({ script: Array.from({ length: 10 }, () => investigate) }),
      tools: () => testTools(),
      currentRoles,
      logger,
      sweepMs: { incidents: 100 },
    });
    intake = startAlertIntake(app, logger);
    slackIntake = slackIntakeOf({
      env,
      config,
      runtime: app.runtime,
      currentRoles,
      logger,
      responseUrlPrefixes: [`${responses.url}/response/`],
    })!;
    server = await startServer({
      runtime: app.runtime,
      auth,
      host: "127.0.0.1",
      port: 0,
      logger,
      rateLimitPerMinute: 0,
      alerts: intake.alerts,
      slack: slackIntake,
    });
    app.start();
  });
  afterAll(async () => {
    await server.close();
    await slackIntake.approvals.close();
    await app.close();
    await Promise.all([slackApi.close(), responses.close()]);
    directory.remove();
  });

  const alert = (body: unknown) =>
    fetch(`${server.url}/api/alerts/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ALERT_TOKEN}` },
      body: JSON.stringify(body),
    });
  const texts = () => slackApi.messages.map((message) => message.text.split("\n")[0]);

  it("posts one parent message for the incident and the investigation's pause in its thread, with buttons", async () => {
    const response = await alert(firingFixture());
    expect(response.status).toBe(202);
    ({ incidentId } = (await response.json()) as { incidentId: string });
    await intake.worker.idle();
    await app.writeBack.idle();
    const [parent, pause] = slackApi.messages;
    expect(slackApi.messages).toHaveLength(2);
    expect(parent).toMatchObject({ channel: "C0INCIDENT1", ts: "1764700000.000001" });
    expect(parent!.thread_ts).toBeUndefined();
    expect(parent!.text).toBe(
      [
        "🚨 AlwaysFiring [critical, firing] from alertmanager: opspilot is investigating; updates follow in this thread",
        `Incident ${incidentId}, since ${parent!.text.split("since ")[1]!.split("\n")[0]}`,
        `Thread incident-${incidentId}: https://ops.example.com/?thread=incident-${incidentId}`,
      ].join("\n"),
    );
    expect(pause).toMatchObject({ channel: "C0INCIDENT1", thread_ts: parent!.ts });
    expect(pause!.text.split("\n")[0]).toBe("⏸ opspilot is waiting for your approval of a high-risk action");
    expect(pause!.blocks?.map((block) => block.type)).toEqual(["section", "actions"]);
    const buttons = pause!.blocks![1]!.elements!.map((button) => button.action_id);
    expect(buttons).toEqual(["opspilot_approve", "opspilot_reject", "opspilot_open"]);
    // Links in what an investigation quoted are not fetched by Slack.
    expect(slackApi.messages.every((message) => message.unfurl_links === false)).toBe(true);
  });

  it("runs the approval clicked in the thread, then replies with the action's outcome and the findings", async () => {
    const pause = slackApi.messages[1]!;
    const approve = pause.blocks![1]!.elements![0] as unknown as Button;
    const click = slackClicker({
      serverUrl: server.url,
      slack: responses,
      secret: SECRET,
      idle: () => slackIntake.approvals.idle(),
      defaultUser: OLIVIA,
    });
    const clicked = await click({ button: approve });
    expect(clicked.status).toBe(200);
    expect(clicked.replies).toEqual([{ replace_original: true, text: "Approved by olivia · write_high ran: ok" }]);
    await app.writeBack.idle();
    expect(texts().slice(2)).toEqual([
      "🔧 write_high ran (approved by olivia): ok",
      "✅ AlwaysFiring [critical, firing]: opspilot answered",
    ]);
    expect(slackApi.messages[3]!.text).toContain("Findings: the pool was exhausted; write_high freed it.");
  });

  it("replies with the resolution and the postmortem's link, every update in the one thread", async () => {
    expect((await alert(resolvedFixture())).status).toBe(202);
    await intake.worker.idle();
    app.writeBack.postmortem(incidentId, `https://ops.example.com/api/incidents/${incidentId}/postmortem`);
    await app.writeBack.idle();
    expect(texts().slice(4)).toEqual([
      expect.stringMatching(/^✅ AlwaysFiring resolved at \d{4}-\d\d-\d\dT/),
      `📝 Postmortem draft of AlwaysFiring (${incidentId}): https://ops.example.com/api/incidents/${incidentId}/postmortem`,
    ]);
    const [parent, ...replies] = slackApi.messages;
    expect(replies).toHaveLength(5);
    expect(replies.every((reply) => reply.thread_ts === parent!.ts)).toBe(true);
    expect(slackApi.messages.filter((message) => message.thread_ts === undefined)).toHaveLength(1);
    expect(logged).toEqual([]);
  });

  it("waits out Slack's 429 Retry-After and then posts the update in the thread", async () => {
    slackApi.rateLimit(1, 1);
    const started = Date.now();
    app.writeBack.postmortem(incidentId, "https://ops.example.com/postmortem-v2");
    await app.writeBack.idle();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(slackApi.messages.at(-1)).toMatchObject({
      thread_ts: slackApi.messages[0]!.ts,
      text: `📝 Postmortem draft of AlwaysFiring (${incidentId}): https://ops.example.com/postmortem-v2`,
    });
    expect(logged).toEqual([]);
  });
});
