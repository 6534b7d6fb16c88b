import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { currentRolesOf } from "../../src/server/auth/auth.js";
import { startAlertIntake, type RunningIntake } from "../../src/server/incidents/intake.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { API_TOKENS, tempDirectory } from "../fixtures/alert-server.js";
import { PAGERDUTY_SECRET, pagerdutyEvent, postPagerduty } from "../fixtures/pagerduty.js";
import {
  PAGERDUTY_API_TOKEN,
  PAGERDUTY_FROM,
  startPagerdutyApi,
  type PagerdutyStandInNote,
} from "../fixtures/pagerduty-api-standin.js";
import { answerMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { SLACK_BOT_TOKEN, startSlackApi } from "../fixtures/slack-api-standin.js";

const FINDINGS = "Findings: checkout-db's pool is exhausted since 09:12; no deploy in the window.";

describe("PagerDuty notes, and a Slack channel that refuses", { timeout: 30_000 }, () => {
  const directory = tempDirectory();
  let pagerduty: Awaited<ReturnType<typeof startPagerdutyApi>>;
  let slackApi: Awaited<ReturnType<typeof startSlackApi>>;
  let app: App;
  let intake: RunningIntake;
  let server: RunningServer;
  const logged: string[] = [];
  const link = "opspilot thread incident-";

  beforeAll(async () => {
    pagerduty = await startPagerdutyApi({ incidents: ["Q1PDINC42"] });
    slackApi = await startSlackApi();
    const env = loadEnv({
      OPSPILOT_API_TOKENS: API_TOKENS,
      OPSPILOT_PUBLIC_URL: "https://ops.example.com/",
      OPSPILOT_PAGERDUTY_SECRET: PAGERDUTY_SECRET,
      OPSPILOT_PAGERDUTY_API_TOKEN: PAGERDUTY_API_TOKEN,
      OPSPILOT_PAGERDUTY_FROM: PAGERDUTY_FROM,
      OPSPILOT_PAGERDUTY_API_URL: pagerduty.apiUrl,
      OPSPILOT_SLACK_BOT_TOKEN: SLACK_BOT_TOKEN,
      OPSPILOT_SLACK_CHANNEL: "#nowhere",
      OPSPILOT_SLACK_API_URL: slackApi.apiUrl,
    });
    const auth = { tokens: env.OPSPILOT_API_TOKENS };
    const logger = { error: (message: string) => logged.push(message) };
    app = createApp({
      env,
      dbPath: join(directory.path, "opspilot.sqlite"),
      model: new ScriptedChatModel({ script: [answerMessage(FINDINGS)] }),
      currentRoles: currentRolesOf(auth),
      logger,
      sweepMs: { incidents: 100 },
    });
    intake = startAlertIntake(app, logger);
    server = await startServer({
      runtime: app.runtime,
      auth,
      host: "127.0.0.1",
      port: 0,
      logger,
      alerts: intake.alerts,
    });
    app.start();
  });
  afterAll(async () => {
    await server.close();
    await app.close();
    await Promise.all([pagerduty.close(), slackApi.close()]);
    directory.remove();
  });

  it("writes the investigation's summary as a note on the PagerDuty incident, after waiting out a 429", async () => {
    pagerduty.rateLimit(1, 1);
    const started = Date.now();
    expect((await postPagerduty(server.url, pagerdutyEvent("incident.triggered"))).status).toBe(202);
    await intake.worker.idle();
    await app.writeBack.idle();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const [first, second] = pagerduty.requests;
    expect(pagerduty.requests).toHaveLength(2);
    expect(second!.body).toEqual(first!.body);
    expect(second!.headers).toMatchObject({
      authorization: `Token token=${PAGERDUTY_API_TOKEN}`,
      from: PAGERDUTY_FROM,
      accept: "application/vnd.pagerduty+json;version=2",
    });
    expect(pagerduty.notes).toEqual<PagerdutyStandInNote[]>([
      {
        incidentId: "Q1PDINC42",
        id: "PNOTE1",
        user: PAGERDUTY_FROM,
        content: expect.stringMatching(
          new RegExp(
            `^opspilot investigation:\\n\\n${escape(FINDINGS)}\\n\\n${link}inc_[0-9a-f]{24}: https://ops\\.example\\.com/\\?thread=incident-inc_[0-9a-f]{24}$`,
          ),
        ) as string,
      },
    ]);
  });

  it("writes the resolution as a second note", async () => {
    expect((await postPagerduty(server.url, pagerdutyEvent("incident.resolved"))).status).toBe(202);
    await intake.worker.idle();
    await app.writeBack.idle();
    expect(pagerduty.notes).toHaveLength(2);
    expect(pagerduty.notes[1]!.content).toMatch(
      /^opspilot: the incident was resolved at \d{4}-\d\d-\d\dT[\d:.]+Z\.\n\nopspilot thread incident-inc_/,
    );
  });

  it("logs every Slack update the channel refused, and posts nothing else", () => {
    expect(slackApi.messages).toEqual([]);
    // The opening's parent, then the answer and the resolution (each tries the parent again first).
    expect(logged).toEqual([
      expect.stringMatching(
        /^slack bot: could not post the parent of incident inc_\w+ to Slack \(channel_not_found\)$/,
      ),
      expect.stringMatching(
        /^slack bot: could not post the parent of incident inc_\w+ to Slack \(channel_not_found\)$/,
      ),
      expect.stringMatching(
        /^slack bot: could not post the answer of incident inc_\w+ to Slack \(the incident's parent message could not be posted\)$/,
      ),
      expect.stringMatching(
        /^slack bot: could not post the parent of incident inc_\w+ to Slack \(channel_not_found\)$/,
      ),
      expect.stringMatching(
        /^slack bot: could not post the resolution of incident inc_\w+ to Slack \(the incident's parent message could not be posted\)$/,
      ),
    ]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
