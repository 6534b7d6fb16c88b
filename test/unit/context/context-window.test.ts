import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildRequest, type RequestParts } from "../../../src/context/context-window.js";
import { emptyMemory, memoryEntry, type MemoryEntry, type WorkingMemory } from "../../../src/context/memory.js";
import { checkPairing, pairingHolds } from "../../../src/graph/pairing.js";
import { tokenMeter } from "../../../src/context/request-tokens.js";
import { toolMessage } from "../../../src/execution/tool-message.js";
import { contextBudgetFor, inputLimitOf, type ContextBudget } from "../../../src/models/context-budget.js";
import { checkPairing as openAIPairing, type WireMessage } from "../../fixtures/openai-server.js";

const PROMPT = "You are opspilot, an operations assistant. Answer in the user's language.";
const TOOLS = [
  {
    type: "function",
    function: {
      name: "search_logs",
      description: "Read recent log lines of one service.",
      parameters: { type: "object", properties: { service: { type: "string" } }, required: ["service"] },
    },
  },
];
const EN = "payment-service request failed: connection pool exhausted after 30000 ms (PAY-5031) ";
const ZH = "支付服务请求失败，数据库连接池耗尽，等待三十秒后超时（PAY-5031）。";

/** One call of a generated step: which language its result is in, how long, and whether it failed. */
const callShape = fc.record({
  zh: fc.boolean(),
  chars: fc.integer({ min: 0, max: 24_000 }),
  ok: fc.boolean(),
});
const turnShape = fc.record({
  zh: fc.boolean(),
  questionChars: fc.integer({ min: 4, max: 600 }),
  steps: fc.array(fc.array(callShape, { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
  answered: fc.boolean(),
});
const threadShape = fc.record({
  turns: fc.array(turnShape, { minLength: 1, maxLength: 9 }),
  windowTokens: fc.integer({ min: 2_048, max: 40_000 }),
  family: fc.constantFrom("openai:gpt-4o-mini", "openai:qwen-plus", "openai:llama3.1", "demo"),
  maxChars: fc.constantFrom(1_000, 4_000, 16_000),
  hard: fc.boolean(),
});

type ThreadShape = typeof threadShape extends fc.Arbitrary<infer T> ? T : never;

const repeat = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length) + 1).slice(0, chars);

/** A thread as the loop writes it: user messages, assistant calls, bounded results, answers, and its memory. */
function buildThread(shape: Pick<ThreadShape, "turns" | "maxChars">) {
  const history: BaseMessage[] = [];
  const entries: MemoryEntry[] = [];
  let ids = 0;
  shape.turns.forEach((turn, index) => {
    const number = index + 1;
    history.push(new HumanMessage({ id: `h${number}`, content: repeat(turn.zh ? ZH : EN, turn.questionChars) }));
    turn.steps.forEach((calls, stepIndex) => {
      const callIds = calls.map(() => `call_${(ids += 1)}`);
      history.push(
        new AIMessage({
          id: `a${ids}`,
          content: "",
          tool_calls: callIds.map((id, i) => ({
            id,
            name: "search_logs",
            args: { service: `svc-${i}` },
            type: "tool_call",
          })),
        }),
      );
      calls.forEach((call, i) => {
        const observation = call.ok
          ? { ok: true as const, data: { lines: repeat(call.zh ? ZH : EN, call.chars) } }
          : { ok: false as const, errorCode: "not_found" as const, message: "No service named svc." };
        history.push(
          toolMessage({
            callId: callIds[i]!,
            tool: "search_logs",
            observation,
            durationMs: 1,
            attempts: 1,
            maxChars: shape.maxChars,
          }),
        );
        entries.push(
          memoryEntry({
            turn: number,
            step: stepIndex + 1,
            callId: callIds[i]!,
            tool: undefined,
            toolName: "search_logs",
            args: { service: `svc-${i}` },
            outcome: call.ok
              ? { ok: true, result: { lines: `${call.chars} lines`, code: `T${number}-${i}0` } }
              : { ok: false, errorCode: "not_found", message: "No service named svc." },
          }),
        );
      });
    });
    const last = index === shape.turns.length - 1;
    if (turn.answered && !last)
      history.push(new AIMessage({ id: `answer${number}`, content: `Turn ${number} answered.` }));
  });
  const memory: WorkingMemory = { ...emptyMemory(), entries };
  return { history, memory };
}

function wire(messages: BaseMessage[]): WireMessage[] {
  return messages.map((message) => {
    if (ToolMessage.isInstance(message)) return { role: "tool", tool_call_id: message.tool_call_id };
    if (AIMessage.isInstance(message))
      return {
        role: "assistant",
        ...(message.tool_calls?.length
          ? {
              tool_calls: message.tool_calls.map((call) => ({
                id: call.id,
                function: { name: call.name, arguments: "{}" },
              })),
            }
          : {}),
      };
    return { role: message.getType() === "human" ? "user" : "system" };
  });
}

function budgetOf(family: string, windowTokens: number): ContextBudget {
  return contextBudgetFor({ model: family, contextTokens: windowTokens });
}

describe("a model request built for the window", () => {
  it("keeps every call with its results and fits the window, whatever the thread", () => {
    fc.assert(
      fc.property(threadShape, (shape) => {
        const { history, memory } = buildThread(shape);
        const budget = budgetOf(shape.family, shape.windowTokens);
        const meter = tokenMeter(budget);
        const parts: RequestParts = { systemPrompt: PROMPT, tools: TOOLS, history, memory };
        const request = buildRequest(parts, { budget, meter, hard: shape.hard });

        expect(SystemMessage.isInstance(request.messages[0])).toBe(true);
        const carried = request.messages.slice(1);
        expect(pairingHolds(checkPairing(carried))).toBe(true);
        expect(openAIPairing(wire(carried))).toBeUndefined();
        // The newest user message and the latest step are always there, in order and last.
        const tail = history.slice(history.findLastIndex((m) => m.getType() === "human"));
        const latestStep = tail.slice(tail.findLastIndex((m) => AIMessage.isInstance(m)));
        expect(carried.slice(-latestStep.length).map((m) => m.id)).toEqual(latestStep.map((m) => m.id));
        expect(carried.some((m) => m.id === tail[0]!.id)).toBe(true);
        // Counted again, message by message: it fits whenever the prompt, tools and latest step can fit at all.
        const recount = 3 + meter.tools(TOOLS) + request.messages.reduce((sum, m) => sum + meter.message(m), 0);
        expect(recount).toBeLessThanOrEqual(request.tokens);
        if (request.omitted > 0) expect(recount).toBe(request.tokens);
        expect(request.limit).toBe(Math.floor(inputLimitOf(budget) * (shape.hard ? 0.6 : 1)));
        // A limit of a 6,000-token window's or more holds the prompt, the tools and any latest step (a hard retry's is 0.6 of its window's).
        if (request.limit >= inputLimitOf(budgetOf(shape.family, 6_000))) expect(request.fits).toBe(true);
        if (request.fits) expect(request.tokens).toBeLessThanOrEqual(request.limit);
        // Whatever is left out is in the memory block, by call id.
        const omittedCalls = history
          .filter((m) => ToolMessage.isInstance(m) && !carried.some((c) => c.id === m.id))
          .map((m) => (m as ToolMessage).tool_call_id);
        const block = String(request.messages[0]!.content);
        const remembered = request.memory ?? memory;
        const digested = new Set(remembered.digests.flatMap((digest) => digest.callIds));
        for (const callId of omittedCalls)
          if (remembered.entries.some((entry) => entry.callId === callId) && !digested.has(callId))
            expect(block).toContain(callId);
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it("sends the whole history unchanged, without tokenizing, while it fits by byte length", () => {
    const history = [
      new HumanMessage({ id: "h1", content: "看看支付服务最近报错" }),
      new AIMessage({ id: "a1", content: "支付服务在 prod 有 PAY-5031 报错。" }),
      new HumanMessage({ id: "h2", content: "and the order service?" }),
    ];
    const budget = budgetOf("demo", 32_000);
    const refuse = () => {
      throw new Error("tokenized");
    };
    const request = buildRequest(
      { systemPrompt: PROMPT, tools: TOOLS, history, memory: emptyMemory() },
      { budget, meter: tokenMeter(budget, { encoding: "cl100k_base", count: refuse }) },
    );
    expect(request.messages.slice(1)).toEqual(history);
    expect(request.messages[0]!.content).toBe(PROMPT);
    expect({ omitted: request.omitted, fits: request.fits, memory: request.memory }).toEqual({
      omitted: 0,
      fits: true,
      memory: undefined,
    });
  });
});
