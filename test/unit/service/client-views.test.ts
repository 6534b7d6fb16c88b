import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/contracts/events.js";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { createHarness } from "../../fixtures/harness.js";

const GITHUB_TOKEN = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

const callArgs = (events: RunEvent[]) =>
  Object.fromEntries(events.flatMap((event) => (event.type === "tool_call" ? [[event.callId, event.args]] : [])));

describe("what clients see of tool calls and results", () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  it("shows a high-risk call's args as validated, without the fields the model smuggled in", async () => {
    const harness = createHarness({
      script: [
        callsMessage([
          {
            name: "write_high",
            id: "w1",
            args: { target: "api", environment: "prod", approved: true, approvedHash: "f".repeat(64) },
          },
        ]),
      ],
    });
    close = harness.close;
    const { threadId, events } = await harness.ask("change api in prod");
    const validated = { target: "api", environment: "prod" };
    expect(callArgs(events)).toEqual({ w1: validated });
    const pause = events.find((event) => event.type === "loop_interrupt");
    expect(pause?.calls.map((call) => call.args)).toEqual([validated]);
    const thread = await harness.runtime.getThread(threadId, harness.user);
    const assistant = thread.messages.find((message) => message.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.toolCalls).toEqual([
      { callId: "w1", tool: "write_high", args: validated },
    ]);
    expect(await harness.runtime.eventsAfter(threadId, harness.user, 0)).toEqual(events);
  });

  it("keeps only declared keys of args that fail validation, and masks an unknown tool's args", async () => {
    const harness = createHarness({
      script: [
        callsMessage([
          { name: "read_a", id: "r1", args: { query: 42, approved: true } },
          { name: "no_such_tool", id: "n1", args: { token: GITHUB_TOKEN, note: `key ${AWS_SECRET}`, approved: true } },
        ]),
        answerMessage("Done."),
      ],
    });
    close = harness.close;
    const { threadId, events } = await harness.ask("look it up");
    expect(callArgs(events)).toEqual({
      r1: { query: 42 },
      n1: { token: "[masked]", note: "key [key masked]", approved: true },
    });
    const thread = await harness.runtime.getThread(threadId, harness.user);
    const assistant = thread.messages.find((message) => message.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.toolCalls).toEqual([
      { callId: "r1", tool: "read_a", args: { query: 42 } },
      { callId: "n1", tool: "no_such_tool", args: { token: "[masked]", note: "key [key masked]", approved: true } },
    ]);
  });

  it("stores a result masked at rest and keeps raw args only in the checkpointed call", async () => {
    const query = `rotate ${AWS_SECRET} for ops@example.com`;
    const harness = createHarness({
      script: [callsMessage([{ name: "read_a", id: "r1", args: { query } }]), answerMessage("Done.")],
    });
    close = harness.close;
    const { threadId, messages } = await harness.ask("rotate the key");
    const masked = "rotate [key masked] for [email masked]";
    expect((await harness.storage.getResult(threadId, "r1"))?.raw).toEqual({
      query: masked,
      found: [`read_a:${masked}`],
      contact: "[email masked]",
    });
    // The executor reads the checkpointed AIMessage: its args stay as the model sent them.
    expect((messages[1] as { tool_calls?: Array<{ args: unknown }> }).tool_calls?.[0]?.args).toEqual({ query });
  });
});
