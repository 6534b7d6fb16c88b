import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { recordedMessageIds } from "../../../src/service/events/recorded-events.js";
import type { RunEventBody } from "../../../src/contracts/events.js";

const viewArgs = (_tool: string, args: unknown) => args;

describe("the messages a recovery treats as already sent", () => {
  it("are those of earlier runs, those with nothing to send, and those whose events the log holds", () => {
    const messages = [
      new HumanMessage({ id: "h1", content: "first" }),
      new AIMessage({ id: "a1", content: "old answer" }),
      new HumanMessage({ id: "h2", content: "second" }),
      new AIMessage({ id: "a2", content: "", tool_calls: [{ id: "c1", name: "read_a", args: { query: "x" } }] }),
      new ToolMessage({ id: "t1", tool_call_id: "c1", name: "read_a", content: "{}" }),
      new AIMessage({ id: "a3", content: "", tool_calls: [{ id: "c2", name: "read_a", args: { query: "y" } }] }),
      new AIMessage({ id: "a4", content: "" }),
    ];
    const logged: RunEventBody[] = [
      { type: "run_started", resumed: false },
      { type: "tool_call", callId: "c1", tool: "read_a", args: { query: "x" } },
      { type: "tool_result", callId: "c1", tool: "read_a", ok: true, summary: "", durationMs: 1 },
    ] as RunEventBody[];
    // a1's events were pruned with its run; a3 died before its tool_call was appended; a4 has nothing to send.
    expect([...recordedMessageIds(messages, logged, viewArgs)].sort()).toEqual(["a1", "a2", "a4", "h1", "h2", "t1"]);
  });
});
