import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app/assemble.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { ApiClient } from "../fixtures/http.js";
import { noticeOf, startSlackServer, type slackClicker, type SlackStandIn } from "../fixtures/slack.js";

const SECRET = "slack-signing-secret-four-eyes-0001";
const RESTART = "restart payment service in staging";
const STALE = "This pause was already answered or is no longer waiting, so nothing was done.";
const SLACK_OLGA = "U0OLGA01";
const SLACK_OSCAR = "U0OSCAR1";
const TOKENS = {
  rita: "tok-rita-0001",
  olga: "tok-olga-0001",
  oscar: "tok-oscar-001",
  vic: "tok-vic-00001",
};

let slack: SlackStandIn;
let click: ReturnType<typeof slackClicker>;
let app: App;
let stack: Awaited<ReturnType<typeof startSlackServer>>;
const client = (user: keyof typeof TOKENS) => new ApiClient(stack.server.url, TOKENS[user]);

beforeAll(async () => {
  stack = await startSlackServer({
    tokens: `${TOKENS.rita}=rita:operator,${TOKENS.olga}=olga:operator,${TOKENS.oscar}=oscar:admin,${TOKENS.vic}=vic:viewer`,
    config: {
      tools: { restart_service: { approvals: { required: 2, distinctFromRequester: true } } },
      chat: { slack: { users: { [SLACK_OLGA]: "olga", [SLACK_OSCAR]: "oscar" } } },
    },
    secret: SECRET,
    defaultUser: SLACK_OLGA,
  });
  ({ slack, click, app } = stack);
});

afterAll(async () => {
  await stack?.close();
  expect(stack?.logged).toEqual([]);
});

const restarts = () => app.ops.countActions({ action: "restart" });

/** rita asks for the restart on a new thread of hers; returns the thread and its pause. */
async function ritaAsks() {
  const rita = client("rita");
  const threadId = await rita.createThread();
  const events = await rita.run(threadId, RESTART);
  const pause = events.find((event) => event.type === "loop_interrupt") as Extract<
    RunEvent,
    { type: "loop_interrupt" }
  >;
  expect(pause.calls).toMatchObject([{ tool: "restart_service" }]);
  return { threadId, pause };
}

async function interruptOf(user: keyof typeof TOKENS, threadId: string): Promise<PauseValue> {
  const view = (await client(user).thread(threadId)).body as { status: string; interrupt: PauseValue };
  expect(view.status).toBe("interrupted");
  return view.interrupt;
}

describe("four eyes over HTTP and Slack", { timeout: 30_000 }, () => {
  it("refuses rita's own approval, waits after olga's click, and runs once on oscar's", async () => {
    const { threadId, pause } = await ritaAsks();
    const call = pause.calls[0]!;
    expect(call.approvals).toEqual({ required: 2, given: [], distinctFromRequester: true, requestedBy: "rita" });
    const first = await noticeOf(slack, threadId);
    expect(first.text).toContain("0 of 2 approvals; rita, who asked, cannot approve");
    const before = await restarts();

    // The requester's own approval: 403, nothing recorded, the same pause waits.
    const own = await client("rita").request("POST", `/api/threads/${threadId}/resume`, {
      decisions: [{ callId: call.callId, action: "approve", argsHash: call.argsHash }],
    });
    expect(own.status).toBe(403);
    expect(((await own.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "permission_denied",
      message: expect.stringContaining("You (rita) started this run"),
    });
    expect((await interruptOf("rita", threadId)).interruptId).toBe(pause.interruptId);

    // A viewer cannot see the thread at all.
    expect((await client("vic").thread(threadId)).status).toBe(404);

    // olga approves from Slack: one of two; the notice is rewritten and a new one carries the next buttons.
    const byOlga = await click({ button: first.buttons.opspilot_approve! });
    expect(byOlga.replies).toEqual([
      {
        replace_original: true,
        text: "Approved by olga · 1 of 2 approvals (olga); rita, who asked, cannot approve; restart_service waits for the next approval",
      },
    ]);
    expect(await restarts()).toBe(before);
    const waiting = await interruptOf("olga", threadId);
    expect(waiting.interruptId).not.toBe(pause.interruptId);
    expect(waiting.calls[0]!.approvals?.given).toEqual([{ userId: "olga", role: "operator", at: expect.any(String) }]);
    const second = await noticeOf(slack, threadId, (text) => text.includes("1 of 2 approvals (olga)"));
    expect(second.types).toEqual(["section", "actions"]);
    expect(JSON.parse(second.buttons.opspilot_approve!.value!)).toMatchObject({ i: waiting.interruptId });

    // olga once more, on the new notice: her approval already counts.
    const twice = await click({ button: second.buttons.opspilot_approve! });
    expect(twice.replies).toEqual([
      {
        response_type: "ephemeral",
        replace_original: false,
        text: expect.stringContaining("You (olga) already approved call"),
      },
    ]);
    // oscar on the first notice: that pause is gone.
    const stale = await click({ button: first.buttons.opspilot_approve!, slackUser: SLACK_OSCAR });
    expect(stale.replies).toEqual([{ response_type: "ephemeral", replace_original: false, text: STALE }]);
    expect(await restarts()).toBe(before);

    // oscar on the new notice: the second distinct approval runs it, once.
    const byOscar = await click({ button: second.buttons.opspilot_approve!, slackUser: SLACK_OSCAR });
    expect(byOscar.replies).toEqual([{ replace_original: true, text: "Approved by oscar · restart_service ran: ok" }]);
    expect(await restarts()).toBe(before + 1);
    const again = await click({ button: second.buttons.opspilot_approve!, slackUser: SLACK_OSCAR });
    expect(again.replies).toEqual([
      {
        response_type: "ephemeral",
        replace_original: false,
        text: "oscar may not answer this pause: the thread is not theirs, or the pause they could answer as another approver was answered. Nothing was done.",
      },
    ]);
    expect(await restarts()).toBe(before + 1);

    // rita's thread shows who approved, and the records keep both approvals.
    const view = (await client("rita").thread(threadId)).body as { messages: Array<Record<string, unknown>> };
    expect(view.messages.find((message) => message.callId === call.callId)).toMatchObject({
      ok: true,
      decision: { action: "approve", by: "oscar", approvers: ["olga", "oscar"] },
    });
    const records = (await (await client("rita").request("GET", `/api/threads/${threadId}/records`)).json()) as {
      decisions: Array<Record<string, unknown>>;
    };
    expect(records.decisions).toHaveLength(1);
    expect(records.decisions[0]).toMatchObject({ action: "approve", user_id: "oscar", role: "admin" });
    expect(
      (JSON.parse(String(records.decisions[0]!.approvals)) as Array<Record<string, unknown>>).map((given) => [
        given.userId,
        given.role,
        given.argsHash,
      ]),
    ).toEqual([
      ["olga", "operator", call.argsHash],
      ["oscar", "admin", call.argsHash],
    ]);
  });

  it("rejects the call when the second person rejects after the first approved", async () => {
    const { threadId, pause } = await ritaAsks();
    const call = pause.calls[0]!;
    const before = await restarts();
    const olga = await client("olga").resume(threadId, {
      decisions: [{ callId: call.callId, action: "approve", argsHash: call.argsHash }],
    });
    expect(olga.map((event) => event.type)).toContain("loop_interrupt");
    const second = await noticeOf(slack, threadId, (text) => text.includes("1 of 2 approvals (olga)"));
    const rejected = await click({ button: second.buttons.opspilot_reject!, slackUser: SLACK_OSCAR });
    expect(rejected.replies).toEqual([{ replace_original: true, text: "Rejected by oscar" }]);
    const view = (await client("rita").thread(threadId)).body as { messages: Array<Record<string, unknown>> };
    expect(view.messages.find((message) => message.callId === call.callId)).toMatchObject({
      ok: false,
      errorCode: "rejected_by_user",
      decision: { action: "reject", by: "oscar" },
    });
    expect(await restarts()).toBe(before);
  });
});

describe.skipIf(!hasChromium)("four eyes on the page", { timeout: 60_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(["--disable-quic"]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows another approver the pause's count and requester, then who approved once they do", async () => {
    const { threadId } = await ritaAsks();
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, locale: "en-US" });
    await page.addInitScript((token) => window.localStorage.setItem("opspilot.token", token), TOKENS.olga);
    await page.goto(`${stack.server.url}/?thread=${threadId}`);
    const pause = page.locator("form.pause");
    const approvals = pause.locator(".approvals");
    await approvals.waitFor();
    expect(await approvals.locator("p").textContent()).toBe(
      "0 of 2 approvals rita asked, so someone else must approve.",
    );
    await pause.locator("button.approve").click();
    await page.locator("form.pause .approvals li").waitFor();
    expect(await page.locator("form.pause .approvals p strong").textContent()).toBe("1 of 2 approvals");
    expect(await page.locator("form.pause .approvals li strong").allTextContents()).toEqual(["olga"]);
    expect((await interruptOf("rita", threadId)).calls[0]!.approvals?.given.map((given) => given.userId)).toEqual([
      "olga",
    ]);
    await page.close();
  });
});
