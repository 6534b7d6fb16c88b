import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app/assemble.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { ApiClient } from "../fixtures/http.js";
import { noticeOf, startSlackServer, type Button, type slackClicker, type SlackStandIn } from "../fixtures/slack.js";

const SECRET = "slack-signing-secret-0123456789abcdef";
const PUBLIC_URL = "https://ops.example.com/";
const RESTART = "restart payment service in staging";
const STALE = "This pause was already answered or is no longer waiting, so nothing was done.";
const OLGA = "U0OLGA01";
const VIC = "U0VIC001";

let slack: SlackStandIn;
let click: ReturnType<typeof slackClicker>;
let app: App;
let olga: ApiClient;
let stack: Awaited<ReturnType<typeof startSlackServer>>;

beforeAll(async () => {
  stack = await startSlackServer({
    tokens: "tok-olga-0001=olga:operator,tok-vic-00001=vic:viewer",
    config: { chat: { slack: { users: { [OLGA]: "olga", [VIC]: "vic" } } } },
    secret: SECRET,
    defaultUser: OLGA,
    publicUrl: PUBLIC_URL,
  });
  ({ slack, click, app } = stack);
  olga = new ApiClient(stack.server.url, "tok-olga-0001");
});

afterAll(async () => {
  await stack?.close();
  expect(stack?.logged).toEqual([]);
});

/** Runs the risky restart on a new thread of olga's and returns the pause and the Slack notice announcing it. */
async function pausedRestart() {
  const threadId = await olga.createThread();
  const events = await olga.run(threadId, RESTART);
  const pause = events.find((event) => event.type === "loop_interrupt") as Extract<
    RunEvent,
    { type: "loop_interrupt" }
  >;
  expect(pause).toMatchObject({ interruptType: "confirm_risky", calls: [{ tool: "restart_service" }] });
  return { threadId, pause, buttons: await noticeButtons(threadId) };
}

/** The buttons of the notice the pause webhook posted for the thread. */
async function noticeButtons(threadId: string): Promise<Record<string, Button>> {
  const notice = await noticeOf(slack, threadId);
  expect(notice.types).toEqual(["section", "actions"]);
  return notice.buttons;
}

const restarts = () => app.ops.countActions({ action: "restart" });

async function thread(threadId: string) {
  return (await olga.thread(threadId)).body as { status: string; messages: Array<Record<string, unknown>> };
}

describe("approving pauses from Slack", { timeout: 30_000 }, () => {
  it("sends Approve and Reject with the notice; a signed click by a mapped operator runs the call once and says so", async () => {
    const { threadId, pause, buttons } = await pausedRestart();
    expect(Object.keys(buttons)).toEqual(["opspilot_approve", "opspilot_reject", "opspilot_open"]);
    const call = pause.calls[0]!;
    expect(JSON.parse(buttons.opspilot_approve!.value!)).toEqual({
      t: threadId,
      i: pause.interruptId,
      c: call.callId,
      h: call.argsHash,
      a: "approve",
    });
    expect(buttons.opspilot_open!.url).toBe(`${PUBLIC_URL}?thread=${threadId}`);
    const before = await restarts();

    const approved = await click({ button: buttons.opspilot_approve! });
    expect(approved).toMatchObject({ status: 200, text: "" });
    expect(approved.replies).toEqual([{ replace_original: true, text: "Approved by olga · restart_service ran: ok" }]);
    expect(await restarts()).toBe(before + 1);
    const result = (await thread(threadId)).messages.find((message) => message.callId === call.callId);
    expect(result).toMatchObject({ ok: true, decision: { action: "approve", by: "olga" } });
    const records = (await (await olga.request("GET", `/api/threads/${threadId}/records`)).json()) as {
      decisions: Array<Record<string, unknown>>;
    };
    expect(records.decisions).toEqual([
      expect.objectContaining({
        call_id: call.callId,
        interrupt_id: pause.interruptId,
        action: "approve",
        user_id: "olga",
        role: "operator",
      }),
    ]);

    // The same click again: the pause is gone, nothing runs, and the clicker is told so.
    const again = await click({ button: buttons.opspilot_approve! });
    expect(again.status).toBe(200);
    expect(again.replies).toEqual([{ response_type: "ephemeral", replace_original: false, text: STALE }]);

    // Slack's retry of the first request, bytes and all: nothing runs and nothing more is said.
    const retry = await click({
      button: buttons.opspilot_approve!,
      body: approved.body,
      headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" },
    });
    // Its response_url is the first request's: still only the one reply.
    expect(retry).toMatchObject({ status: 200, replies: approved.replies });
    expect(await restarts()).toBe(before + 1);
    expect((await thread(threadId)).status).toBe("idle");
  });

  it("rejects from Slack: the call gets the user's rejection and does not run", async () => {
    const { threadId, pause, buttons } = await pausedRestart();
    const before = await restarts();
    const rejected = await click({ button: buttons.opspilot_reject! });
    expect(rejected.replies).toEqual([{ replace_original: true, text: "Rejected by olga" }]);
    const result = (await thread(threadId)).messages.find((message) => message.callId === pause.calls[0]!.callId);
    expect(result).toMatchObject({
      ok: false,
      errorCode: "rejected_by_user",
      decision: { action: "reject", by: "olga" },
    });
    expect(await restarts()).toBe(before);
  });

  it("runs nothing for a click on a pause already answered on the page", async () => {
    const { threadId, pause, buttons } = await pausedRestart();
    await olga.resume(threadId, { decisions: [{ callId: pause.calls[0]!.callId, action: "reject" }] });
    const before = await restarts();
    const late = await click({ button: buttons.opspilot_approve! });
    expect(late.replies).toEqual([{ response_type: "ephemeral", replace_original: false, text: STALE }]);
    expect(await restarts()).toBe(before);
  });

  it("runs the call once when two people click Approve at the same moment", async () => {
    const { buttons } = await pausedRestart();
    const before = await restarts();
    const clicks = await Promise.all([
      click({ button: buttons.opspilot_approve! }),
      click({ button: buttons.opspilot_approve! }),
    ]);
    const texts = clicks.flatMap((result) => result.replies.map((reply) => reply.text)).sort();
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe("Approved by olga · restart_service ran: ok");
    expect([STALE, "This pause is being answered right now, so nothing more was done."]).toContain(texts[1]);
    expect(await restarts()).toBe(before + 1);
  });

  it("answers 401 to a bad signature and to a 10-minute-old timestamp, and changes nothing", async () => {
    const { threadId, buttons } = await pausedRestart();
    const forged = await click({ button: buttons.opspilot_approve!, secret: "not-the-signing-secret-000" });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.text)).toEqual({
      error: {
        code: "unauthorized",
        message: "X-Slack-Signature does not match the request signed with OPSPILOT_SLACK_SIGNING_SECRET.",
      },
    });
    const stale = await click({ button: buttons.opspilot_approve!, timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    expect(JSON.parse(stale.text)).toMatchObject({ error: { code: "unauthorized" } });
    expect([forged.replies, stale.replies]).toEqual([[], []]);
    expect((await thread(threadId)).status).toBe("interrupted");
  });

  it("runs nothing for an unmapped Slack user or a viewer, and tells each why", async () => {
    const { threadId, buttons } = await pausedRestart();
    const before = await restarts();
    const stranger = await click({ button: buttons.opspilot_approve!, slackUser: "U0NOBODY" });
    expect(stranger.replies).toEqual([
      {
        response_type: "ephemeral",
        replace_original: false,
        text: "Your Slack user U0NOBODY is not linked to an opspilot user, so nothing was done; an admin links it under chat.slack.users in the config file.",
      },
    ]);
    expect((await thread(threadId)).status).toBe("interrupted");

    // vic started this run as an operator; the token table now gives vic only a viewer's token.
    const vicThread = await app.runtime.createThread({ id: "vic", role: "operator" });
    const run = await app.runtime.startRun({
      threadId: vicThread,
      message: RESTART,
      user: { id: "vic", role: "operator" },
    });
    const vicEvents = [];
    for await (const event of run) vicEvents.push(event.type);
    expect(vicEvents.at(-1)).toBe("run_finished");
    const vicButtons = await noticeButtons(vicThread);
    const viewer = await click({ button: vicButtons.opspilot_approve!, slackUser: VIC });
    expect(viewer.replies).toEqual([
      {
        response_type: "ephemeral",
        replace_original: false,
        text: expect.stringMatching(
          /^vic may not answer this pause: Your role \(viewer\) is not allowed to use restart_service/,
        ),
      },
    ]);
    expect(await restarts()).toBe(before);
    const vicView = await app.runtime.getThread(vicThread, { id: "vic", role: "viewer" });
    expect(vicView.status).toBe("interrupted");
  });

  it("gives a pause that waits for fields only a link to the page, and acknowledges that link's click", async () => {
    const threadId = await olga.createThread();
    await olga.run(threadId, "看看支付服务最近报错，顺便对照一下文档里的处理建议");
    const buttons = await noticeButtons(threadId);
    expect(Object.values(buttons)).toEqual([
      {
        type: "button",
        action_id: "opspilot_open",
        text: { type: "plain_text", text: "Fill in on the page", emoji: true },
        url: `${PUBLIC_URL}?thread=${threadId}`,
        style: "primary",
      },
    ]);
    const opened = await click({ button: buttons.opspilot_open! });
    expect(opened).toMatchObject({ status: 200, text: "", replies: [] });
    expect((await thread(threadId)).status).toBe("interrupted");
  });
});
