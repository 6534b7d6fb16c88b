import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import { RunMetrics } from "../../src/service/observability/metrics.js";
import { ApiClient } from "../fixtures/http.js";
import { noticeOf, startSlackServer } from "../fixtures/slack.js";

const SECRET = "slack-signing-secret-0123456789abcdef";
const OLGA = "U0OLGA01";
const STRANGER = "U0NOBODY";

let stack: Awaited<ReturnType<typeof startSlackServer>>;
let olga: ApiClient;
const metrics = new RunMetrics();

beforeAll(async () => {
  stack = await startSlackServer({
    tokens: "tok-olga-0001=olga:operator",
    config: { chat: { slack: { users: { [OLGA]: "olga" } } } },
    secret: SECRET,
    defaultUser: OLGA,
    onReplyFailure: (action) => metrics.slackReplyFailures.inc({ action }),
  });
  olga = new ApiClient(stack.server.url, "tok-olga-0001");
});
afterAll(async () => stack?.close());

/** A new thread of olga's paused on the risky restart, and the buttons of its Slack notice. */
async function pausedRestart() {
  const threadId = await olga.createThread();
  const events = await olga.run(threadId, "restart payment service in staging");
  expect(events.some((event: RunEvent) => event.type === "loop_interrupt")).toBe(true);
  return { threadId, buttons: (await noticeOf(stack.slack, threadId)).buttons };
}

const failures = async () =>
  (await metrics.registry.metrics())
    .split("\n")
    .filter((line) => line.startsWith("opspilot_slack_reply_failures_total{"));

describe("a Slack reply that cannot be delivered", { timeout: 30_000 }, () => {
  it("is logged with the Slack user, the action and the refusal it carried, and counted", async () => {
    const { threadId, buttons } = await pausedRestart();
    const host = new URL(stack.slack.url).host;
    const clicked = await stack.click({
      button: buttons.opspilot_reject!,
      slackUser: STRANGER,
      responsePath: "/response/expired/1",
    });
    expect(clicked.status).toBe(200);
    expect(stack.logged).toEqual([
      {
        message: `slack: the reply to ${STRANGER}'s reject on thread ${threadId} was not delivered (${host}: HTTP 404); it said: "Your Slack user ${STRANGER} is not linked to an opspilot user, so nothing was done; an admin links it under chat.slack.users in the config file."`,
        error: undefined,
      },
    ]);
    expect(await failures()).toEqual([
      'opspilot_slack_reply_failures_total{action="approve"} 0',
      'opspilot_slack_reply_failures_total{action="reject"} 1',
    ]);
  });

  it("is logged with the outcome of an approval that ran, and counted under approve", async () => {
    stack.logged.length = 0;
    const { threadId, buttons } = await pausedRestart();
    await stack.click({ button: buttons.opspilot_approve!, responsePath: "/response/expired/2" });
    expect(stack.logged).toEqual([
      {
        message: expect.stringMatching(
          new RegExp(
            `^slack: the reply to ${OLGA}'s approve on thread ${threadId} was not delivered \\(127\\.0\\.0\\.1:\\d+: HTTP 404\\); it said: "Approved by olga · restart_service ran: ok"$`,
          ),
        ),
        error: undefined,
      },
    ]);
    expect(await failures()).toContain('opspilot_slack_reply_failures_total{action="approve"} 1');
    stack.logged.length = 0;
  });
});
