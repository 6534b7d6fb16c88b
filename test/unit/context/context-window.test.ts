import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildRequest, type RequestParts } from "../../../src/context/context-window.js";
import { emptyMemory, memoryEntry, type MemoryEntry, type WorkingMemory } from "../../../src/context/memory.js";
import { checkPairing, pairingHolds } from "../../../src/graph/calls/pairing.js";
import { tokenMeter } from "../../../src/context/request-tokens.js";
import { toolMessage } from "../../../src/execution/tool-message.js";
import { contextBudgetFor, inputLimitOf, targetOf, type ContextBudget } from "../../../src/models/context-budget.js";
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
  target: fc.option(fc.integer({ min: 1_024, max: 40_000 }), { nil: undefined }),
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

function budgetOf(family: string, windowTokens: number, targetTokens?: number): ContextBudget {
  return contextBudgetFor({ model: family, contextTokens: windowTokens, targetTokens });
}

describe("a model request built for the window", () => {
  it("keeps every call with its results and fits the window, whatever the thread", () => {
    fc.assert(
      fc.property(threadShape, (shape) => {
        const { history, memory } = buildThread(shape);
        const budget = budgetOf(shape.family, shape.windowTokens, shape.target);
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
        // Only the current question and the latest step may pass the target; a harder request aims for its limit.
        expect(request.target).toBeLessThanOrEqual(request.limit);
        if (shape.hard) expect(request.target).toBe(request.limit);
        if (request.tokens > request.target)
          expect(carried.map((m) => m.id)).toEqual([...new Set([tail[0]!.id, ...latestStep.map((m) => m.id)])]);
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

  it("fits a latest step whose one result nearly fills the window, and never lengthens a short question to cut it", () => {
    // fast-check's counterexample: the cut result came out a few tokens over, and cutting the
    // four-character question then added the cut's note to it, pushing the request past its limit.
    for (const windowTokens of [15_100, 15_128, 15_129, 15_150]) {
      const shape = {
        turns: [{ zh: false, questionChars: 4, steps: [[{ zh: true, chars: 15_899, ok: true }]], answered: false }],
        maxChars: 16_000 as const,
      };
      const { history, memory } = buildThread(shape);
      const budget = budgetOf("openai:qwen-plus", windowTokens);
      const meter = tokenMeter(budget);
      const request = buildRequest({ systemPrompt: PROMPT, tools: TOOLS, history, memory }, { budget, meter });
      const [, question, call, result] = request.messages;
      expect(request.fits).toBe(true);
      expect(request.tokens).toBeLessThanOrEqual(request.limit);
      expect(question!.content).toBe(history[0]!.content);
      expect(call!.id).toBe(history[1]!.id);
      // Cut to the room left, not far below it: the cut keeps nearly all the tokens the limit leaves.
      const room = request.limit - (request.tokens - meter.message(result!));
      expect(meter.message(result!)).toBeLessThan(meter.message(history[2]!));
      expect(meter.message(result!)).toBeGreaterThan(room * 0.95);
    }
  });

  it("fits its limit when the memory block counts a few tokens more inside the system prompt than alone", () => {
    // fast-check's counterexample: eight unanswered turns and a latest step cut to fit. Condensed earlier
    // turns filled the room the cut left; the memory block, counted inside the system prompt, came to 8
    // tokens more than counted alone, so the request passed its limit by one, and choosing again in a room
    // one token smaller chose the same turns (the room had more than one token to spare).
    const ok = (chars: number) => ({ zh: false, chars, ok: true });
    const failed = { zh: false, chars: 0, ok: false };
    const turn = (zh: boolean, questionChars: number, steps: ReturnType<typeof ok>[][]) => ({
      zh,
      questionChars,
      steps,
      answered: false,
    });
    const shape = {
      turns: [
        turn(false, 65, [[ok(1_000), failed], [ok(1_001)]]),
        turn(true, 79, [[failed, ok(100), ok(1_000)], [ok(1_001)]]),
        turn(false, 80, [[ok(1_000), ok(1_001)]]),
        turn(true, 80, [[ok(1_000)], [failed]]),
        turn(true, 80, [
          [failed, ok(1_000)],
          [ok(0), failed, ok(0)],
        ]),
        turn(false, 80, [[ok(1_000)]]),
        turn(false, 83, [[ok(10_000)], [failed], [ok(1_000), ok(10_001), ok(1_001)]]),
        turn(false, 300, [[ok(7_758), ok(6_169)]]),
      ],
      maxChars: 16_000 as const,
    };
    const { history, memory } = buildThread(shape);
    const budget = budgetOf("openai:qwen-plus", 5_282);
    const meter = tokenMeter(budget);
    const request = buildRequest({ systemPrompt: PROMPT, tools: TOOLS, history, memory }, { budget, meter });
    expect({ limit: request.limit, target: request.target, fits: request.fits }).toEqual({
      limit: 4_622,
      target: 4_622,
      fits: true,
    });
    expect(request.tokens).toBeLessThanOrEqual(request.limit);
    const recount = 3 + meter.tools(TOOLS) + request.messages.reduce((sum, m) => sum + meter.message(m), 0);
    expect(recount).toBe(request.tokens);
    // The newest question and the latest step, in order and last; its first result cut to fit.
    expect(request.messages.slice(-4).map((m) => m.id)).toEqual(["h8", "a24", "tool-call_23", "tool-call_24"]);
    expect(meter.message(request.messages.at(-2)!)).toBeLessThan(meter.message(history.at(-2)!));
    expect(request.messages.at(-1)!.content).toBe(history.at(-1)!.content);
  });

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

describe("a request's target", () => {
  /** `turns` turns of one call each, its result about `chars` characters of English log lines. */
  const thread = (turns: number, chars: number, maxChars: ThreadShape["maxChars"] = 4_000) =>
    buildThread({
      turns: Array.from({ length: turns }, () => ({
        zh: false,
        questionChars: 40,
        steps: [[{ zh: false, chars, ok: true }]],
        answered: true,
      })),
      maxChars,
    });
  const tokensOf = (meter: ReturnType<typeof tokenMeter>, messages: readonly BaseMessage[]) =>
    3 + meter.tools(TOOLS) + messages.reduce((sum, m) => sum + meter.message(m), 0);

  it("defaults to a quarter of the prompt limit, at least 6,144 tokens, and never more than the limit", () => {
    expect(targetOf(budgetOf("openai:gpt-4o-mini", 32_000))).toBe(7_000);
    expect(targetOf(budgetOf("openai:gpt-4o-mini", 128_000))).toBe(30_976);
    expect(targetOf(budgetOf("openai:gpt-3.5-turbo", 16_385))).toBe(6_144);
    expect(targetOf(budgetOf("openai:llama3.1", 4_096))).toBe(3_584);
    expect(targetOf(budgetOf("openai:gpt-4o-mini", 32_000, 12_000))).toBe(12_000);
    expect(targetOf(budgetOf("openai:gpt-4o-mini", 32_000, 50_000))).toBe(28_000);
  });

  it("folds the turns above the target into working memory, and a request at the limit carries them all", () => {
    const { history, memory } = thread(12, 3_000);
    const parts: RequestParts = { systemPrompt: PROMPT, tools: TOOLS, history, memory };
    const whole = budgetOf("openai:gpt-4o-mini", 32_000, 28_000);
    const full = buildRequest(parts, { budget: whole, meter: tokenMeter(whole) });
    expect(full.omitted).toBe(0);
    expect(full.tokens).toBeGreaterThan(6_000);

    const budget = budgetOf("openai:gpt-4o-mini", 32_000, 3_000);
    const meter = tokenMeter(budget);
    const request = buildRequest(parts, { budget, meter });
    expect({ limit: request.limit, target: request.target, fits: request.fits }).toEqual({
      limit: 28_000,
      target: 3_000,
      fits: true,
    });
    expect(request.tokens).toBeLessThanOrEqual(3_000);
    expect(tokensOf(meter, request.messages)).toBe(request.tokens);
    // The latest step travels whole; the results left out are listed in memory by call id, for read_result.
    expect(request.messages.slice(-3)).toEqual(history.slice(-3));
    const block = String(request.messages[0]!.content);
    const left = history.filter((m) => ToolMessage.isInstance(m) && !request.messages.includes(m));
    expect(left.length).toBeGreaterThan(8);
    for (const message of left) expect(block).toContain((message as ToolMessage).tool_call_id);
    // Every question of the thread is still there, at least in a condensed turn.
    for (const question of history.filter((m) => m.getType() === "human"))
      expect(request.messages.some((m) => m.id === question.id)).toBe(true);
  });

  it("lets the latest step pass the target up to the limit, whole, rather than cut it", () => {
    const { history, memory } = thread(4, 16_000, 16_000);
    const budget = budgetOf("openai:gpt-4o-mini", 32_000, 2_500);
    const meter = tokenMeter(budget);
    const request = buildRequest({ systemPrompt: PROMPT, tools: TOOLS, history, memory }, { budget, meter });
    const latest = history.slice(-3);
    expect(request.tokens).toBeGreaterThan(request.target);
    expect(request.fits).toBe(true);
    expect(request.messages.slice(1)).toEqual(latest);
    expect(request.messages.at(-1)!.content).toBe(latest.at(-1)!.content);
  });

  it("sends a small history whole without tokenizing it when the tool schemas alone pass the target by bytes", () => {
    const tools = Array.from({ length: 12 }, (_, i) => ({
      type: "function",
      function: { ...TOOLS[0]!.function, name: `search_logs_${i}`, description: "读取一个服务最近的日志。".repeat(12) },
    }));
    const history = [
      new HumanMessage({ id: "h1", content: "看看支付服务最近报错" }),
      new AIMessage({ id: "a1", content: "支付服务在 prod 有 PAY-5031 报错。" }),
    ];
    const budget = budgetOf("openai:gpt-4o-mini", 32_000, 6_144);
    const counted: string[] = [];
    const real = tokenMeter(budget);
    const meter = tokenMeter(budget, {
      encoding: "o200k_base",
      count: (text) => (counted.push(text), real.text(text)),
    });
    const request = buildRequest({ systemPrompt: PROMPT, tools, history, memory: emptyMemory() }, { budget, meter });
    expect(Buffer.byteLength(JSON.stringify(tools))).toBeGreaterThan(request.target);
    expect(request.messages.slice(1)).toEqual(history);
    expect(request.tokens).toBeLessThanOrEqual(request.target);
    expect(counted.some((text) => history.some((m) => text.includes(String(m.content))))).toBe(false);
  });

  it("gives way to a request built again after a refusal: that one aims for its own, smaller limit", () => {
    const { history, memory } = thread(12, 3_000);
    const budget = budgetOf("openai:gpt-4o-mini", 32_000);
    const request = buildRequest(
      { systemPrompt: PROMPT, tools: TOOLS, history, memory },
      { budget, meter: tokenMeter(budget), hard: true, refusedTokens: 5_000 },
    );
    expect({ limit: request.limit, target: request.target }).toEqual({ limit: 3_000, target: 3_000 });
    expect(request.tokens).toBeLessThanOrEqual(3_000);
  });
});
