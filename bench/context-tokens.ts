import { randomUUID } from "node:crypto";
import { MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent, summarizationMiddleware } from "langchain";
import { z } from "zod";
import { wireLoop } from "../src/app/wire-loop.js";
import { tokenMeter } from "../src/context/request-tokens.js";
import { contextBudgetFor, targetOf } from "../src/models/context-budget.js";
import { ScriptedChatModel, answerMessage, callsMessage, type ScriptStep } from "../test/fixtures/scripted-model.js";
import { collectEvents } from "../src/service/events/recorded-events.js";
import { openSqlite } from "../src/storage/sqlite/open-sqlite.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { defineTool } from "../src/tools/types.js";
import { mean, round } from "./stats.js";

/** How the request-size benchmark runs. */
export interface ContextTokensOptions {
  /** Turns of the thread, each one tool step with a 20 KB result, then an answer. */
  steps: number;
  /** The model whose family sets the encoding and margin. */
  model: string;
  /** The window of the bounded run. */
  windowTokens: number;
}

/** Request tokens of one run of the thread. */
export interface ContextTokensRun {
  /** `bounded` (the window applies) or `unbounded` (the whole history every time). */
  label: string;
  /** Prompt tokens (o200k, no margin) of the request that reads each step's result, in step order. */
  tokens: number[];
  /** Loop time per step, measuring excluded. */
  msPerStep: number;
  /** Prompt tokens of every model request of the thread, the summarizer's included. */
  totalTokens: number;
  /** Whether the request that reads the last step's result still holds the turn-2 fact (`DEP-1002`). */
  keepsTurnTwoFact: boolean;
}

/** Both runs and how they compare. */
export interface ContextTokensResult {
  options: ContextTokensOptions;
  /** The bounded run's target: the request size it aims for within the window (its budget's default). */
  targetTokens: number;
  bounded: ContextTokensRun;
  unbounded: ContextTokensRun;
  /** Mean request tokens per step, unbounded over bounded. */
  meanRatio: number;
  /** Request tokens at the last step, unbounded over bounded. */
  lastRatio: number;
  /** Bounded: mean of the last 10 steps over the mean of the 10 before them (1.00 is flat). */
  boundedGrowth: number;
  /** LangChain's `createAgent` with `summarizationMiddleware` for the same window, the same model script and tool. */
  summarized: ContextTokensRun & { summarizerCalls: number };
  /** Bounded over summarized: prompt tokens at the last step, and over the whole thread (summarizer calls counted). */
  lastVsSummarized: number;
  totalVsSummarized: number;
}

/** About 20 KB of log lines, English and Chinese on alternate steps, with a deploy id of its own. */
function logPayload(step: number) {
  const lines: string[] = [];
  for (let i = 0; JSON.stringify(lines).length < 20_000; i += 1)
    lines.push(
      step % 2 === 0
        ? `08:${String(i % 60).padStart(2, "0")} 错误 支付服务 请求 ${i} 失败：数据库连接池耗尽，等待 ${(i * 37) % 900} 毫秒`
        : `08:${String(i % 60).padStart(2, "0")} ERROR payment-service request ${i} failed after ${(i * 37) % 900} ms`,
    );
  return { step, deploy: `DEP-${1000 + step}`, lines };
}

const searchLogs = defineTool({
  name: "search_logs",
  description: "Read the log lines of one step of the drill.",
  schema: z.object({ step: z.number().int().describe("Which step") }),
  readOnly: true,
  risk: "low",
  timeoutMs: 5_000,
  run: async ({ step }) => logPayload(step),
  summarize: (result) => [`deploy ${(result as ReturnType<typeof logPayload>).deploy}`],
});

/** Calls the tool for each question and answers once its result is in. */
const followTheUser: ScriptStep = ({ messages }) => {
  const last = messages.at(-1)!;
  if (ToolMessage.isInstance(last)) return answerMessage("Checked.");
  return callsMessage([{ name: "search_logs", args: { step: Number(/(\d+)/.exec(String(last.content))?.[1] ?? 0) } }]);
};

/**
 * The thread's scripted model, counting the prompt tokens (o200k, no margin, tool schemas
 * included) of every request it gets, and of those that read a step's result; `counter` counts
 * a list of messages the same way (the summarizer's requests).
 */
function recordingModel(steps: number) {
  const measure = tokenMeter({ encoding: "o200k_base", margin: 1 });
  const toolTokens = measure.tools(new ToolRegistry([searchLogs]).specs());
  const counter = (messages: BaseMessage[]) => messages.reduce((sum, message) => sum + measure.message(message), 3);
  const seen = { tokens: [] as number[], totalTokens: 0, lastRequest: [] as BaseMessage[], measuringMs: 0 };
  const model = new ScriptedChatModel({
    script: Array.from({ length: steps * 2 }, () => followTheUser),
    assertCall: (call) => {
      const started = performance.now();
      const request = toolTokens + counter(call.messages);
      seen.totalTokens += request;
      if (ToolMessage.isInstance(call.messages.at(-1))) {
        seen.tokens.push(request);
        seen.lastRequest = call.messages;
      }
      seen.measuringMs += performance.now() - started;
    },
  });
  return { model, counter, seen };
}

async function runThread(options: ContextTokensOptions, bounded: boolean): Promise<ContextTokensRun> {
  const registry = new ToolRegistry([searchLogs]);
  const { model, seen } = recordingModel(options.steps);
  const backend = openSqlite(":memory:");
  const contextTokens = bounded ? options.windowTokens : 100_000_000;
  const { runtime } = wireLoop({
    model,
    registry,
    storage: backend.storage,
    checkpointer: new MemorySaver(),
    contextBudget: contextBudgetFor({ model: options.model, contextTokens }),
  });
  const user = { id: "bench", role: "operator" };
  try {
    const threadId = await runtime.createThread(user);
    const started = performance.now();
    for (let step = 1; step <= options.steps; step += 1) {
      const message =
        step % 2 === 0 ? `第 ${step} 步：支付服务的日志里有什么？` : `Step ${step}: what do the payment logs say?`;
      await collectEvents(await runtime.startRun({ threadId, message, user }));
    }
    const msPerStep = (performance.now() - started - seen.measuringMs) / options.steps;
    if (seen.tokens.length !== options.steps)
      throw new Error(`expected ${options.steps} steps, saw ${seen.tokens.length}`);
    return {
      label: bounded ? "bounded" : "unbounded",
      tokens: seen.tokens,
      msPerStep: round(msPerStep),
      totalTokens: seen.totalTokens,
      keepsTurnTwoFact: holdsFact(seen.lastRequest),
    };
  } finally {
    await runtime.close();
    backend.close();
  }
}

/** The fact the thread's second turn read (its deploy id), looked for in the last request. */
const TURN_TWO_FACT = "DEP-1002";
const holdsFact = (messages: BaseMessage[]) =>
  messages.some((message) => JSON.stringify(message.content).includes(TURN_TWO_FACT));

/**
 * The same thread through LangChain's `createAgent` with `summarizationMiddleware` configured
 * for the same window: it summarizes once the request reaches the window's prompt limit and
 * keeps the newest quarter of it. The summarizer is scripted too, and generous: its summary
 * keeps every deploy id it was shown, so the turn-2 fact can survive. Every model request is
 * counted, the summarizer's included.
 */
async function runSummarizedThread(
  options: ContextTokensOptions,
): Promise<ContextTokensRun & { summarizerCalls: number }> {
  const budget = contextBudgetFor({ model: options.model, contextTokens: options.windowTokens });
  const promptLimit = budget.windowTokens - budget.reserveOutputTokens;
  const { model, counter, seen } = recordingModel(options.steps);
  const search = tool(async ({ step }: { step: number }) => JSON.stringify(logPayload(step)), {
    name: searchLogs.name,
    description: searchLogs.description,
    schema: z.object({ step: z.number().int().describe("Which step") }),
  });
  let summarizerCalls = 0;
  const summarizer = new ScriptedChatModel({
    script: Array.from({ length: options.steps * 4 }, () => ({ messages }: { messages: BaseMessage[] }) => {
      const shown = messages.map((message) => JSON.stringify(message.content)).join("\n");
      const deploys = [...new Set(shown.match(/DEP-\d+/g) ?? [])];
      return new AIMessage(`Summary: payment-service log checks; deploys seen: ${deploys.join(", ")}.`);
    }),
    assertCall: (call) => {
      summarizerCalls += 1;
      seen.totalTokens += counter(call.messages);
    },
  });
  const agent = createAgent({
    model,
    tools: [search],
    checkpointer: new MemorySaver(),
    middleware: [
      summarizationMiddleware({
        model: summarizer,
        trigger: { tokens: promptLimit },
        keep: { tokens: Math.round(promptLimit / 4) },
        // The summarizer reads all it summarizes (by default only its last 4,000 tokens), so it can keep the turn-2 fact.
        trimTokensToSummarize: promptLimit,
        tokenCounter: counter,
      }),
    ],
  });
  const config = { configurable: { thread_id: randomUUID() }, recursionLimit: 50 };
  const started = performance.now();
  for (let step = 1; step <= options.steps; step += 1) {
    const content =
      step % 2 === 0 ? `第 ${step} 步：支付服务的日志里有什么？` : `Step ${step}: what do the payment logs say?`;
    await agent.invoke({ messages: [new HumanMessage(content)] }, config);
  }
  const msPerStep = (performance.now() - started - seen.measuringMs) / options.steps;
  if (seen.tokens.length !== options.steps)
    throw new Error(`createAgent: expected ${options.steps} steps, saw ${seen.tokens.length}`);
  return {
    label: "createAgent + summarization",
    tokens: seen.tokens,
    msPerStep: round(msPerStep),
    totalTokens: seen.totalTokens,
    keepsTurnTwoFact: holdsFact(seen.lastRequest),
    summarizerCalls,
  };
}

/** Request tokens per step over a long thread, with the context budget and without it. */
export async function runContextTokens(
  options: ContextTokensOptions,
  progress: (line: string) => void,
): Promise<ContextTokensResult> {
  progress(`request tokens: ${options.steps}-step thread, ${options.model}, window ${options.windowTokens}`);
  const unbounded = await runThread(options, false);
  const bounded = await runThread(options, true);
  const summarized = await runSummarizedThread(options);
  const last10 = mean(bounded.tokens.slice(-10));
  const before = mean(bounded.tokens.slice(-20, -10));
  return {
    options,
    targetTokens: targetOf(contextBudgetFor({ model: options.model, contextTokens: options.windowTokens })),
    bounded,
    unbounded,
    meanRatio: round(mean(unbounded.tokens) / mean(bounded.tokens)),
    lastRatio: round(unbounded.tokens.at(-1)! / bounded.tokens.at(-1)!),
    boundedGrowth: round(last10 / before),
    summarized,
    lastVsSummarized: round(bounded.tokens.at(-1)! / summarized.tokens.at(-1)!),
    totalVsSummarized: round(bounded.totalTokens / summarized.totalTokens),
  };
}
