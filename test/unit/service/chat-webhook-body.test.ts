import { describe, expect, it } from "vitest";
import { chatWebhookBody } from "../../../src/service/notices/chat-webhook-body.js";

describe("chat webhook bodies", () => {
  it("shows Slack's markup characters in text as text: a planted <!channel> or link pings and links no one", () => {
    const text = "notify_channel: «<!channel> see <https://evil.example|the runbook> & act»";
    const body = chatWebhookBody(text, "slack") as { text: string; blocks: Array<{ text: { text: string } }> };
    const shown = "notify_channel: «&lt;!channel&gt; see &lt;https://evil.example|the runbook&gt; &amp; act»";
    expect(body.text).toBe(shown);
    expect(body.blocks[0]!.text.text).toBe(shown);
    // The chats that take plain text get it as it is.
    expect(chatWebhookBody(text, "feishu")).toEqual({ msg_type: "text", content: { text } });
  });
});
