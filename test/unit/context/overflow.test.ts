import { afterEach, describe, expect, it } from "vitest";
import { ContextOverflowError } from "@langchain/core/errors";
import type { BaseMessage } from "@langchain/core/messages";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { contextBudgetFor, inputLimitOf } from "../../../src/models/context-budget.js";
import { tokenMeter } from "../../../src/context/request-tokens.js";
import { isContextOverflow } from "../../../src/context/context-overflow.js";
import { createHarness, eventTypes } from "../../fixtures/harness.js";
import { testTools } from "../../fixtures/test-tools.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

const tooLong = () => new ContextOverflowError("This model's maximum context length is 8192 tokens.");
const budget = contextBudgetFor({ model: "openai:gpt-4o-mini", contextTokens: 8_000 });
const meter = tokenMeter(budget);

describe("isContextOverflow", () => {
  it.each([
    ["LangChain's ContextOverflowError", tooLong()],
    ["OpenAI's code", { status: 400, code: "context_length_exceeded", message: "400 Bad request" }],
    [
      "OpenAI's words",
      {
        status: 400,
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      },
    ],
    ["Anthropic's words", { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" }],
    [
      "llama.cpp's words",
      { status: 400, message: "the request exceeds the available context size, try increasing it" },
    ],
    ["a 413 from a gateway", { status: 413, message: "Input is too long for this model" }],
    ["a wrapped cause", { message: "model call failed", cause: { status: 400, code: "context_length_exceeded" } }],
  ])("recognises %s", (_name, error) => {
    expect(isContextOverflow(error)).toBe(true);
  });

  it.each([
    ["a bad model name", { status: 400, message: "Invalid value for 'model'" }],
    ["a rate limit on tokens", { status: 429, message: "Too many tokens per minute, please slow down" }],
    ["a server error", { status: 500, message: "context length unknown" }],
    ["a network error", new Error("connect ECONNREFUSED 127.0.0.1:1")],
    ["nothing", undefined],
  ])("does not mistake %s for one", (_name, error) => {
    expect(isContextOverflow(error)).toBe(false);
  });
});

describe("a request the provider refuses as too long", () => {
  const bigRead = () => callsMessage([{ name: "read_a", args: { query: "payment pool exhausted ".repeat(130) } }]);
  const small = contextBudgetFor({ model: "openai:gpt-4o-mini", contextTokens: 4_000 });

  it("is compacted harder and retried once, then the run answers", async () => {
    const harness = createHarness({
      script: [bigRead(), answerMessage("first answer"), tooLong(), answerMessage("second answer")],
      contextBudget: small,
    });
    close = harness.close;
    const { threadId } = await harness.ask("look it up");
    const { events } = await harness.askOn(threadId, "and again?");
    expect(eventTypes(events)).toEqual(["run_started", "assistant_message", "run_finished"]);
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer" });
    const [refused, retried] = harness.model.calls.slice(2).map((call) => call.messages);
    const tokens = (messages: BaseMessage[]) => 3 + messages.reduce((sum, m) => sum + meter.message(m), 0);
    expect(tokens(retried!)).toBeLessThan(tokens(refused!));
    expect(tokens(retried!)).toBeLessThanOrEqual(Math.floor(inputLimitOf(small) * 0.6));
    expect(harness.model.calls).toHaveLength(4);
    expect(harness.violations).toEqual([]);
  });

  it("ends the run with a message that says so after a second refusal, and the next run works", async () => {
    const harness = createHarness({
      script: [bigRead(), answerMessage("first answer"), tooLong(), tooLong(), answerMessage("third answer")],
      contextBudget: budget,
    });
    close = harness.close;
    const { threadId } = await harness.ask("look it up");
    const refused = await harness.askOn(threadId, "and again?");
    expect(refused.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "error" });
    const message = refused.events.find((event) => event.type === "assistant_message") as
      { content: string } | undefined;
    expect(message?.content).toMatch(/^The model refused the request as longer than its context window/);
    expect(message?.content).not.toMatch(/could not be reached|ContextOverflowError|at .*\.js/);
    const next = await harness.askOn(threadId, "once more?");
    expect(next.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(harness.model.calls).toHaveLength(5);
  });

  it("says so in Chinese to a Chinese question", async () => {
    const harness = createHarness({ script: [tooLong(), tooLong()], contextBudget: budget, tools: testTools() });
    close = harness.close;
    const { events } = await harness.ask("看看支付服务最近报错");
    const message = events.find((event) => event.type === "assistant_message") as { content: string } | undefined;
    expect(message?.content).toMatch(/^模型认为请求超出了它的上下文窗口/);
  });
});
