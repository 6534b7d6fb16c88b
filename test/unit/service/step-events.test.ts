import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { messageIdsOf, runFinished, runStarted, stepEvents } from "../../../src/service/events/step-events.js";
import type { ModelTurn } from "../../../src/graph/state.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";

const viewArgs = (_tool: string, args: unknown) => args;
const ask = new HumanMessage({ id: "h1", content: "check the payment service" });
const proposal = new AIMessage({
  id: "a1",
  content: "Looking at the logs.",
  tool_calls: [{ id: "c1", name: "search_logs", args: { service: "payment-service" } }],
});
const result = new ToolMessage({
  id: "t1",
  tool_call_id: "c1",
  name: "search_logs",
  content: '{"ok":true}',
  artifact: { ok: true, summary: "3 lines", durationMs: 12, attempts: 1 },
});
const turn: ModelTurn = { messageId: "a1", step: 1, latencyMs: 250, inputTokens: 900, outputTokens: 40, costUsd: 0.01 };
const pause: PauseValue = {
  interruptId: "int_1",
  interruptType: "confirm_risky",
  reason: "restart_service is a high-risk action; approve, edit or reject it.",
  calls: [{ callId: "c2", tool: "restart_service", args: { service: "payment-service" }, argsHash: "h", risk: "high" }],
};

describe("the events of a step, from the state before and after it", () => {
  it("gives a model reply's message and calls, the turn's figures on its first event only", () => {
    const events = stepEvents({ messageIds: messageIdsOf([ask]) }, { messages: [ask, proposal], turn }, viewArgs);
    expect(events).toEqual([
      {
        type: "assistant_message",
        messageId: "a1",
        content: "Looking at the logs.",
        model: { step: 1, latencyMs: 250, inputTokens: 900, outputTokens: 40, costUsd: 0.01 },
      },
      { type: "tool_call", callId: "c1", tool: "search_logs", args: { service: "payment-service" } },
    ]);
  });

  it("tells only the messages not told before, by id, when a resumed stream re-sends the whole state", () => {
    const before = { messageIds: messageIdsOf([ask, proposal]) };
    // A re-sent state whose order differs: a length-based delta would tell the proposal again.
    const events = stepEvents(before, { messages: [result, ask, proposal], turn }, viewArgs);
    expect(events).toEqual([
      { type: "tool_result", callId: "c1", tool: "search_logs", ok: true, summary: "3 lines", durationMs: 12 },
    ]);
  });

  it("tells a message listed twice in one change once", () => {
    expect(stepEvents({ messageIds: new Set() }, { messages: [result, result] }, viewArgs)).toHaveLength(1);
  });

  it("leaves the figures off a reply the turn did not write", () => {
    const other = new AIMessage({ id: "a9", content: "Done." });
    expect(stepEvents({ messageIds: new Set() }, { messages: [other], turn }, viewArgs)).toEqual([
      { type: "assistant_message", messageId: "a9", content: "Done." },
    ]);
  });

  it("reads the figures an older checkpoint's reply carried in its response_metadata", () => {
    const old = new AIMessage({
      id: "a0",
      content: "Old answer.",
      response_metadata: { opspilot: { step: 2, latencyMs: 80, costUsd: 0.002, retries: 1 } },
      usage_metadata: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
    });
    expect(stepEvents({ messageIds: new Set() }, { messages: [old], turn: null }, viewArgs)).toEqual([
      {
        type: "assistant_message",
        messageId: "a0",
        content: "Old answer.",
        model: { step: 2, latencyMs: 80, inputTokens: 100, outputTokens: 10, costUsd: 0.002, retries: 1 },
      },
    ]);
  });

  it("gives a new pause its loop_interrupt once, after the step's messages", () => {
    const after = { messages: [ask, proposal, result], pause };
    const told = messageIdsOf([ask, proposal]);
    expect(stepEvents({ messageIds: told }, after, viewArgs).map((event) => event.type)).toEqual([
      "tool_result",
      "loop_interrupt",
    ]);
    expect(stepEvents({ messageIds: messageIdsOf(after.messages), pause }, after, viewArgs)).toEqual([]);
    expect(stepEvents({ messageIds: new Set() }, { messages: [], pause }, viewArgs)).toEqual([
      { type: "loop_interrupt", ...pause },
    ]);
  });

  it("tells nothing for a user's message or a message without an id", () => {
    const anonymous = new AIMessage({ content: "no id" });
    expect(stepEvents({ messageIds: new Set() }, { messages: [ask, anonymous] }, viewArgs)).toEqual([]);
  });

  it("starts and finishes a run with the fields design §6 names", () => {
    expect(runStarted(true)).toEqual({ type: "run_started", resumed: true });
    expect(
      runFinished({
        stopReason: "final_answer",
        steps: 2,
        durationMs: 40,
        paused: false,
        spent: { tokens: 9, costUsd: 0 },
      }),
    ).toEqual({
      type: "run_finished",
      stopReason: "final_answer",
      steps: 2,
      durationMs: 40,
      paused: false,
      tokens: 9,
      costUsd: 0,
    });
    expect(runFinished({ stopReason: "error", steps: 0, durationMs: 5, paused: false })).toEqual({
      type: "run_finished",
      stopReason: "error",
      steps: 0,
      durationMs: 5,
      paused: false,
    });
  });
});
