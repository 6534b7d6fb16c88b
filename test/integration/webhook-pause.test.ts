import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { startWebhookReceiver, type WebhookReceiver } from "../fixtures/webhook-receiver.js";

const RESTART = "restart payment service in staging";
const PUBLIC_URL = "https://ops.example.com/";

type Receiver = WebhookReceiver;
const cleanup: Array<TestServer | Receiver> = [];
afterEach(async () => {
  for (const item of cleanup.splice(0).reverse()) await item.close();
});

/** A server whose pauses go to the receiver in `format`, and the pause of a risky restart on it. */
async function pauseWith(receiver: Receiver, format: string) {
  const server = await startTestServer({
    env: {
      OPSPILOT_PAUSE_WEBHOOK: receiver.url,
      OPSPILOT_PAUSE_WEBHOOK_FORMAT: format,
      OPSPILOT_PUBLIC_URL: PUBLIC_URL,
    },
  });
  cleanup.push(server);
  const threadId = await server.client.createThread();
  const events = await server.client.run(threadId, RESTART);
  const pause = events.find((event) => event.type === "loop_interrupt") as Extract<
    RunEvent,
    { type: "loop_interrupt" }
  >;
  expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
  return { server, threadId, pause, events };
}

const TEXT = (threadId: string) =>
  new RegExp(
    `^⏸ opspilot is waiting for your approval of a high-risk action\\n.+\\n• restart_service \\{"service":"payment-service","environment":"staging"\\}\\nThread ${threadId}: https://ops\\.example\\.com/\\?thread=${threadId}$`,
  );

describe("pause notices to a webhook", { timeout: 30_000 }, () => {
  it("POSTs the pause as generic JSON: link, tools, masked args as events show them, reason, type and thread", async () => {
    const receiver = await startWebhookReceiver([200]);
    cleanup.push(receiver);
    const { threadId, pause } = await pauseWith(receiver, "json");
    await receiver.received(1);
    expect(receiver.requests).toEqual([
      {
        contentType: "application/json",
        body: {
          type: "pause",
          link: `https://ops.example.com/?thread=${threadId}`,
          threadId,
          runId: pause.runId,
          interruptId: pause.interruptId,
          interruptType: "confirm_risky",
          reason: pause.reason,
          tools: ["restart_service"],
          calls: JSON.parse(JSON.stringify(pause.calls)) as unknown,
        },
      },
    ]);
    expect(pause.calls[0]!.args).toEqual({ service: "payment-service", environment: "staging" });
  });

  it.each([
    [
      "slack",
      // The actions block (Approve, Reject, the page link) is checked in slack-approvals.test.ts.
      (text: string) => ({
        text,
        blocks: [{ type: "section", text: { type: "mrkdwn", text } }, expect.objectContaining({ type: "actions" })],
      }),
    ],
    ["feishu", (text: string) => ({ msg_type: "text", content: { text } })],
    ["dingtalk", (text: string) => ({ msgtype: "text", text: { content: text } })],
  ] as const)("shapes the notice for a %s incoming webhook", async (format, shape) => {
    const receiver = await startWebhookReceiver([200]);
    cleanup.push(receiver);
    const { threadId } = await pauseWith(receiver, format);
    await receiver.received(1);
    const { body } = receiver.requests[0] as { body: Record<string, unknown> };
    const text = findText(body);
    expect(text).toMatch(TEXT(threadId));
    expect(body).toEqual(shape(text));
    expect(receiver.attempts()).toBe(1);
  });

  it("retries a receiver that fails twice and delivers the notice on the third attempt", async () => {
    const receiver = await startWebhookReceiver([500, 503, 200]);
    cleanup.push(receiver);
    const { pause } = await pauseWith(receiver, "json");
    await receiver.received(3);
    const ids = receiver.requests.map((entry) => (entry as { body: { interruptId: string } }).body.interruptId);
    expect(ids).toEqual([pause.interruptId, pause.interruptId, pause.interruptId]);
  });

  it("finishes the run while a receiver that never answers still holds the notice", async () => {
    const receiver = await startWebhookReceiver(["hang"]);
    cleanup.push(receiver);
    const { events } = await pauseWith(receiver, "json");
    // run_finished already came; the receiver got the notice and has not answered it.
    await receiver.received(1);
    expect(events.map((event) => event.type).slice(-2)).toEqual(["loop_interrupt", "run_finished"]);
    expect(receiver.attempts()).toBe(1);
  });
});

/** The text of a chat webhook body, wherever its format keeps it. */
function findText(body: Record<string, unknown>): string {
  if (typeof body.text === "string") return body.text;
  const content = body.content as { text?: string } | undefined;
  if (content?.text) return content.text;
  return (body.text as { content: string }).content;
}
