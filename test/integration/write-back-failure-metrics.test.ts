import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { currentRolesOf } from "../../src/server/auth/auth.js";
import { startAlertIntake, type RunningIntake } from "../../src/server/incidents/intake.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { RunMetrics } from "../../src/service/observability/metrics.js";
import { writeBackFailuresCounter } from "../../src/service/observability/write-back-failures.js";
import { API_TOKENS, tempDirectory } from "../fixtures/alert-server.js";
import { PAGERDUTY_SECRET, pagerdutyEvent, postPagerduty } from "../fixtures/pagerduty.js";
import { PAGERDUTY_API_TOKEN, PAGERDUTY_FROM, startPagerdutyApi } from "../fixtures/pagerduty-api-standin.js";
import { answerMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { SLACK_BOT_TOKEN, startSlackApi } from "../fixtures/slack-api-standin.js";

describe("write-back given up after its retries", { timeout: 30_000 }, () => {
  const directory = tempDirectory();
  const metrics = new RunMetrics();
  const writeBackFailures = writeBackFailuresCounter(metrics.registry);
  let pagerduty: Awaited<ReturnType<typeof startPagerdutyApi>>;
  let slackApi: Awaited<ReturnType<typeof startSlackApi>>;
  let app: App;
  let intake: RunningIntake;
  let server: RunningServer;
  const logged: string[] = [];

  beforeAll(async () => {
    // PagerDuty knows no incident (every note is refused with a 404) and Slack has no such channel.
    pagerduty = await startPagerdutyApi({ incidents: [] });
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
      model: new ScriptedChatModel({ script: [answerMessage("Findings: the pool is exhausted.")] }),
      currentRoles: currentRolesOf(auth),
      logger,
      sweepMs: { incidents: 100 },
      onWriteBackFailure: (failure) => writeBackFailures.inc(failure),
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

  const series = async () =>
    (await metrics.registry.metrics())
      .split("\n")
      .filter((line) => line.startsWith("opspilot_writeback_failures_total{"));

  it("reads 0 for every target and update before anything failed", async () => {
    expect(await series()).toEqual([
      'opspilot_writeback_failures_total{target="slack",update="parent"} 0',
      'opspilot_writeback_failures_total{target="slack",update="pause"} 0',
      'opspilot_writeback_failures_total{target="slack",update="action"} 0',
      'opspilot_writeback_failures_total{target="slack",update="answer"} 0',
      'opspilot_writeback_failures_total{target="slack",update="resolution"} 0',
      'opspilot_writeback_failures_total{target="slack",update="postmortem"} 0',
      'opspilot_writeback_failures_total{target="pagerduty",update="summary"} 0',
      'opspilot_writeback_failures_total{target="pagerduty",update="resolution"} 0',
    ]);
  });

  it("counts each Slack update and PagerDuty note given up by target and update, once each, beside its log line", async () => {
    expect((await postPagerduty(server.url, pagerdutyEvent("incident.triggered"))).status).toBe(202);
    await intake.worker.idle();
    await app.writeBack.idle();
    expect(pagerduty.notes).toEqual([]);
    expect(slackApi.messages).toEqual([]);
    // The opening's parent, then the answer (which tries the parent again first), and the summary note.
    expect(logged.filter((line) => line.startsWith("pagerduty: could not add the summary note"))).toHaveLength(1);
    expect(logged.filter((line) => line.startsWith("slack bot: could not post"))).toHaveLength(3);
    expect((await series()).filter((line) => !line.endsWith(" 0"))).toEqual([
      'opspilot_writeback_failures_total{target="slack",update="parent"} 2',
      'opspilot_writeback_failures_total{target="slack",update="answer"} 1',
      'opspilot_writeback_failures_total{target="pagerduty",update="summary"} 1',
    ]);
  });
});
