/** The chats whose incoming webhooks take a plain text message. */
export const CHAT_WEBHOOK_FORMATS = ["slack", "feishu", "dingtalk"] as const;

/** One of `CHAT_WEBHOOK_FORMATS`. */
export type ChatWebhookFormat = (typeof CHAT_WEBHOOK_FORMATS)[number];

/**
 * The request body that posts `text` as a message through a chat's incoming webhook. Slack
 * reads `&`, `<` and `>` as markup (`<!channel>`, `<url|label>`): they are escaped, so text a
 * tool returned (a call's args) is shown, never obeyed.
 */
export function chatWebhookBody(text: string, format: ChatWebhookFormat): unknown {
  switch (format) {
    case "slack": {
      const shown = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
      return { text: shown, blocks: [{ type: "section", text: { type: "mrkdwn", text: shown } }] };
    }
    case "feishu":
      return { msg_type: "text", content: { text } };
    case "dingtalk":
      return { msgtype: "text", text: { content: text } };
    default: {
      const _exhaustive: never = format;
      return _exhaustive;
    }
  }
}

/** A notice's request body: the notice itself in the generic `json` format, else its text as a chat message. */
export function noticeBody(notice: unknown, text: () => string, format: "json" | ChatWebhookFormat): unknown {
  return format === "json" ? notice : chatWebhookBody(text(), format);
}
