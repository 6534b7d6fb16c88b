import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { DemoChatModel } from "../../src/models/demo-model.js";
import { currentRolesOf } from "../../src/server/auth.js";
import { slackIntakeOf } from "../../src/server/slack-intake.js";
import type { SlackIntake } from "../../src/server/slack-route.js";
import { signSlackRequest } from "../../src/server/slack-signature.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { ApiClient } from "../fixtures/http.js";

const SECRET = "slack-signing-secret-0123456789abcdef";
const PUBLIC_URL = "https://ops.example.com/";
const RESTART = "restart payment service in staging";
const STALE = "This pause was already answered or is no longer waiting, so nothing was done.";
const OLGA = "U0OLGA01";
const VIC = "U0VIC001";

/** One loopback server standing in for Slack: the incoming webhook the notices go to, and every response_url. */
async function startSlack() {
  const received: Array<{ path: string; body: Record<string, unknown> }> = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (part: Buffer) => (raw += part.toString("utf8")));
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: JSON.parse(raw) as Record<string, unknown> });
      waiters.splice(0).forEach((wake) => wake());
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** What came to `path`, in order. */
    at: (path: string) => received.filter((entry) => entry.path === path).map((entry) => entry.body),
    /** The first body that satisfies `test`, once it has come. */
    async first(test: (entry: { path: string; body: Record<string, unknown> }) => boolean) {
      for (;;) {
        const found = received.find(test);
        if (found) return found.body;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Button = { action_id: string; value?: string; url?: string; text: { text: string } };

let slack: Awaited<ReturnType<typeof startSlack>>;
let app: App;
let intake: SlackIntake;
let server: RunningServer;
let olga: ApiClient;
let directory: string;
const logged: unknown[] = [];
let responses = 0;

beforeAll(async () => {
  slack = await startSlack();
  directory = mkdtempSync(join(tmpdir(), "opspilot-slack-"));
  const env = loadEnv({
    OPSPILOT_PAUSE_WEBHOOK: `${slack.url}/hook`,
    OPSPILOT_PAUSE_WEBHOOK_FORMAT: "slack",
    OPSPILOT_PUBLIC_URL: PUBLIC_URL,
    OPSPILOT_SLACK_SIGNING_SECRET: SECRET,
    OPSPILOT_API_TOKENS: "tok-olga-0001=olga:operator,tok-vic-00001=vic:viewer",
  });
  const auth = { tokens: env.OPSPILOT_API_TOKENS };
  const currentRoles = currentRolesOf(auth);
  const config = parseConfig({ chat: { slack: { users: { [OLGA]: "olga", [VIC]: "vic" } } } }, {});
  app = createApp({
    env,
    dbPath: join(directory, "opspilot.sqlite"),
    model: new DemoChatModel(),
    config,
    currentRoles,
  });
  const logger = { error: (message: string, error?: unknown) => logged.push({ message, error }) };
  intake = slackIntakeOf({
    env,
    config,
    runtime: app.runtime,
    currentRoles,
    logger,
    responseUrlPrefixes: [`${slack.url}/response/`],
  })!;
  server = await startServer({ runtime: app.runtime, auth, host: "127.0.0.1", port: 0, logger, slack: intake });
  olga = new ApiClient(server.url, "tok-olga-0001");
});

afterAll(async () => {
  await server?.close();
  await intake?.approvals.close();
  await app?.close();
  await slack?.close();
  rmSync(directory, { recursive: true, force: true });
  expect(logged).toEqual([]);
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
  const notice = await slack.first((entry) => entry.path === "/hook" && String(entry.body.text).includes(threadId));
  const blocks = notice.blocks as Array<{ type: string; elements?: Button[] }>;
  expect(blocks.map((block) => block.type)).toEqual(["section", "actions"]);
  return Object.fromEntries(blocks[1]!.elements!.map((button) => [button.action_id, button]));
}

/** POSTs a click on `button` as Slack would: a form with the block_actions payload, signed now. */
async function click(options: {
  button: Button;
  slackUser?: string;
  headers?: Record<string, string>;
  timestamp?: number;
  secret?: string;
  /** Resend these exact bytes (Slack's retry). */
  body?: string;
}) {
  responses += 1;
  const payload = {
    type: "block_actions",
    user: { id: options.slackUser ?? OLGA, username: "someone", team_id: "T0001" },
    api_app_id: "A0001",
    container: { type: "message", message_ts: "1764700000.000100", channel_id: "C0001" },
    trigger_id: `trigger-${responses}`,
    response_url: `${slack.url}/response/${responses}`,
    actions: [{ ...options.button, type: "button", block_id: "b1", action_ts: "1764700001.000200" }],
  };
  const body = options.body ?? new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const response = await fetch(`${server.url}/api/integrations/slack/interactions`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": signSlackRequest({ body, timestamp, secret: options.secret ?? SECRET }),
      ...options.headers,
    },
    body,
  });
  const text = await response.text();
  await intake.approvals.idle();
  const sent = JSON.parse(new URLSearchParams(body).get("payload")!) as { response_url: string };
  return { status: response.status, text, body, replies: slack.at(new URL(sent.response_url).pathname) };
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
