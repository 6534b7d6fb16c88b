import { describe, expect, it } from "vitest";
import type { AssistantDelta, RunEvent } from "../../../src/contracts/events.js";
import { EventRenderer } from "../../../src/cli/output/render.js";
import { createStyle } from "../../../src/cli/output/style.js";

const ids = { threadId: "t-1", runId: "r-1" };
const delta = (text: string): AssistantDelta => ({ type: "assistant_delta", ...ids, step: 1, text });
const message = (content: string, seq = 2): RunEvent => ({
  type: "assistant_message",
  ...ids,
  seq,
  messageId: "m-1",
  content,
});

/** What a terminal shows: fragments written as they are, lines ended by newlines. */
function screen(renderer: EventRenderer, events: Array<RunEvent | AssistantDelta>): string {
  let text = "";
  for (const event of events) {
    if (event.type === "assistant_delta") text += renderer.renderDelta(event);
    else for (const line of renderer.render(event)) text += line + "\n";
  }
  return text;
}

describe("the CLI's rendering of streamed answers", () => {
  it("writes the fragments as they come and does not print the complete answer again", () => {
    const renderer = new EventRenderer(createStyle(false));
    const shown = screen(renderer, [
      delta("Payment "),
      delta("errors: "),
      delta("42."),
      message("Payment errors: 42."),
    ]);
    expect(shown).toBe("\nPayment errors: 42.\n\n");
  });

  it("prints the same answer as a whole message when nothing streamed", () => {
    const renderer = new EventRenderer(createStyle(false));
    expect(screen(renderer, [message("Payment errors: 42.")])).toBe("\nPayment errors: 42.\n\n");
  });

  it("ends the streamed line before a tool call, and prints a complete message that differs from what streamed", () => {
    const renderer = new EventRenderer(createStyle(false));
    const call: RunEvent = { type: "tool_call", ...ids, seq: 2, callId: "c-1", tool: "search_logs", args: {} };
    const shown = screen(renderer, [
      delta("Checking the logs."),
      call,
      delta("Half an"),
      message("A whole answer.", 4),
    ]);
    expect(shown).toBe("\nChecking the logs.\nstep 1\n  → [1] search_logs {}\n\nHalf an\n\nA whole answer.\n\n");
  });
});
