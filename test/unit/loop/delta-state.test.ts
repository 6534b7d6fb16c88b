import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { Messages } from "@langchain/langgraph";
import { isDeltaChannel } from "@langchain/langgraph/channels";
import { describe, expect, it } from "vitest";
import { DELTA_CHANNELS } from "../../../src/contracts/checkpoints.js";
import { threadMessagesReducer } from "../../../src/graph/delta-state.js";
import { AgentState, agentState } from "../../../src/graph/state.js";

const writes = (): Messages[] => [
  [new HumanMessage("check the payment service")],
  new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search_logs", args: {} }] }),
  [new ToolMessage({ content: "{}", tool_call_id: "c1" })],
  [{ role: "assistant", content: "Done." }],
];

describe("the thread's delta channels", () => {
  it("are the channels contracts/checkpoints.ts names, and none when only the latest checkpoint is kept", () => {
    const deltas = (spec: object) =>
      Object.entries(spec).flatMap(([name, channel]) => (isDeltaChannel(channel as never) ? [name] : []));
    expect(deltas(AgentState.spec).sort()).toEqual([...DELTA_CHANNELS].sort());
    expect(deltas(agentState({ delta: false }).spec)).toEqual([]);
  });

  it("give a message written without an id the same id however the writes are batched, as a replay does", () => {
    const oneByOne = writes().reduce<BaseMessage[]>((state, write) => threadMessagesReducer(state, [write]), []);
    const atOnce = threadMessagesReducer([], writes());
    expect(oneByOne.map((message) => message.id)).toEqual(atOnce.map((message) => message.id));
    expect(new Set(atOnce.map((message) => message.id)).size).toBe(4);
    for (const message of atOnce) expect(message.id).toMatch(/^msg-[0-9a-f]{32}$/);
    expect(atOnce.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
  });

  it("replace a message by id and remove one, as LangGraph's messages reducer does", () => {
    const state = threadMessagesReducer([], writes());
    const [question, , , answer] = state;
    const edited = threadMessagesReducer(state, [
      [new AIMessage({ id: answer!.id, content: "Done, edited." }), new RemoveMessage({ id: question!.id! })],
    ]);
    expect(edited.map((message) => message.content)).toEqual(["", "{}", "Done, edited."]);
    expect(() => threadMessagesReducer(state, [new RemoveMessage({ id: "nope" })])).toThrow(/doesn't exist/);
  });
});
