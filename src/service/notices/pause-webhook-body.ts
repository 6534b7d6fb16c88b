import type { RunEvent } from "../../contracts/events.js";
import { previewLines } from "../../contracts/pause/preview-text.js";
import { noticeBody } from "./chat-webhook-body.js";
import { pauseActionsBlock } from "../slack/buttons.js";

/** A pause as the run stream recorded it (args already masked, as clients see them). */
export type PauseEvent = Extract<RunEvent, { type: "loop_interrupt" }>;

/** How the body of a pause notice is shaped: generic JSON, or the text message of a chat's incoming webhook. */
export const PAUSE_WEBHOOK_FORMATS = ["json", "slack", "feishu", "dingtalk"] as const;

/** One of `PAUSE_WEBHOOK_FORMATS`. */
export type PauseWebhookFormat = (typeof PAUSE_WEBHOOK_FORMATS)[number];

/** The generic JSON notice of a pause. */
export interface PauseNotice {
  type: "pause";
  /** Where a person answers it: the web page opened on the thread. */
  link: string;
  threadId: string;
  runId: string;
  interruptId: string;
  interruptType: PauseEvent["interruptType"];
  reason: string;
  /** Names of the waiting tools, in order. */
  tools: string[];
  /** The waiting calls as the events show them (masked args, risk, missing fields). */
  calls: PauseEvent["calls"];
}

/** The link to the web page open on a thread. */
export function threadLink(publicUrl: string, threadId: string): string {
  const url = new URL(publicUrl);
  url.searchParams.set("thread", threadId);
  return url.toString();
}

/** The generic notice of a pause. */
export function pauseNotice(event: PauseEvent, publicUrl: string): PauseNotice {
  return {
    type: "pause",
    link: threadLink(publicUrl, event.threadId),
    threadId: event.threadId,
    runId: event.runId,
    interruptId: event.interruptId,
    interruptType: event.interruptType,
    reason: event.reason,
    tools: event.calls.map((call) => call.tool),
    calls: event.calls,
  };
}

/** The notice as a few lines of plain text, for chat webhooks. */
export function pauseText(notice: PauseNotice): string {
  const title =
    notice.interruptType === "confirm_risky"
      ? "opspilot is waiting for your approval of a high-risk action"
      : "opspilot is waiting for details from you";
  return [
    `⏸ ${title}`,
    notice.reason,
    ...notice.calls.flatMap((call) => [
      `• ${call.tool} ${JSON.stringify(call.args)}`,
      ...previewLines(call.preview).map((line) => `  ${line}`),
      ...copiedQuotes(call),
    ]),
    `Thread ${notice.threadId}: ${notice.link}`,
  ].join("\n");
}

/** Copied parts quoted per egress call, and the longest quote, in characters. */
const QUOTES_MAX = 3;
const QUOTE_MAX_CHARS = 120;

/**
 * What an egress call copied from untrusted tool results (the pause's reason names the
 * sources), as short quotes under its line: the first few parts, each cut.
 */
export function copiedQuotes(call: PauseEvent["calls"][number]): string[] {
  const copied = call.egress?.copied ?? [];
  const quotes = copied.slice(0, QUOTES_MAX).map((part) => {
    const characters = Array.from(part.text);
    const text =
      characters.length > QUOTE_MAX_CHARS ? `${characters.slice(0, QUOTE_MAX_CHARS - 1).join("")}…` : part.text;
    return `  ↳ ${part.field} copied from ${part.from}: “${text}”`;
  });
  if (copied.length > QUOTES_MAX) quotes.push(`  ↳ and ${copied.length - QUOTES_MAX} more copied parts`);
  return quotes;
}

/**
 * The request body of a notice in the chosen format. A Slack notice also carries an `actions`
 * block: Approve and Reject for a call that waits only for a yes or no, else a link to the page.
 */
export function pauseWebhookBody(notice: PauseNotice, format: PauseWebhookFormat): unknown {
  const body = noticeBody(notice, () => pauseText(notice), format);
  if (format !== "slack") return body;
  const message = body as { text: string; blocks: unknown[] };
  return { ...message, blocks: [...message.blocks, pauseActionsBlock(notice)] };
}
