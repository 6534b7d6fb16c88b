import { randomUUID } from "node:crypto";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { setTimeout as sleep } from "node:timers/promises";
import { wireLoop } from "../src/app/wire-loop.js";
import { recursionLimitFor } from "../src/graph/config.js";
import { ScriptedChatModel, answerMessage, callsMessage, type ScriptStep } from "../test/fixtures/scripted-model.js";
import { collectEvents } from "../src/service/events/recorded-events.js";
import type { SqliteBackend } from "../src/storage/sqlite/open-sqlite.js";
import type { ToolRegistry } from "../src/tools/registry.js";
import {
  ANSWER,
  BENCH_USER as user,
  QUESTION,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  toolPayload,
  toolSchema,
  workloadRegistry,
} from "./workload.js";

/** A scripted run with latencies: each turn calls the tool `callsPerTurn` times (distinct args). */
export interface TimedScript {
  /** Tool-calling turns before the answer. */
  turns: number;
  /** Tool calls per turn (read-only, so opspilot runs them in parallel). */
  callsPerTurn: number;
  /** Latency of each model call. */
  modelMs: number;
  /** Latency of each tool call. */
  toolMs: number;
}

function scriptOf(script: TimedScript): ScriptedChatModel {
  const steps: ScriptStep[] = Array.from({ length: script.turns }, (_, turn) =>
    callsMessage(
      Array.from({ length: script.callsPerTurn }, (_, call) => ({
        name: TOOL_NAME,
        args: { query: `t${turn}c${call}` },
      })),
    ),
  );
  steps.push(answerMessage(ANSWER));
  return new ScriptedChatModel({ script: steps, delayMs: script.modelMs });
}

async function readRecord(script: TimedScript, query: string): Promise<unknown> {
  await sleep(script.toolMs);
  return toolPayload("small", query);
}

function registryOf(script: TimedScript): ToolRegistry {
  return workloadRegistry((query) => readRecord(script, query), 10_000);
}

/** Checks a finished thread's messages: every scripted tool result, and the scripted answer last. */
function assertAnswered(messages: BaseMessage[], script: TimedScript, who: string): void {
  assertDone(
    messages.filter((message) => ToolMessage.isInstance(message)).length,
    messages.at(-1)?.content === ANSWER,
    script,
    who,
  );
}

function assertDone(toolResults: number, answered: boolean, script: TimedScript, who: string): void {
  const expected = script.turns * script.callsPerTurn;
  if (toolResults !== expected || !answered)
    throw new Error(
      `${who} did not do the scripted work: ${toolResults}/${expected} tool results, answered=${answered}`,
    );
}

/** Wall ms of one run of opspilot's compiled graph (invoked directly) on `backend`. */
export async function timeGraph(backend: SqliteBackend, script: TimedScript): Promise<number> {
  const maxSteps = script.turns + 5;
  const { graph } = wireLoop({
    model: scriptOf(script),
    registry: registryOf(script),
    storage: backend.storage,
    checkpointer: backend.checkpointer,
    defaults: { maxSteps, tokenBudget: 1_000_000_000 },
  });
  const configurable = { thread_id: randomUUID(), run_id: randomUUID(), userId: user.id, role: user.role, maxSteps };
  const started = performance.now();
  const state = await graph.invoke(
    { messages: [new HumanMessage(QUESTION)] },
    { configurable, recursionLimit: recursionLimitFor({ maxSteps }) },
  );
  const ms = performance.now() - started;
  assertAnswered(state.messages as BaseMessage[], script, "opspilot_graph");
  return ms;
}

/** Wall ms of one run through opspilot's runtime (lease, events recorded), as the HTTP API drives it. */
export async function timeRuntime(backend: SqliteBackend, script: TimedScript): Promise<number> {
  const { runtime } = wireLoop({
    model: scriptOf(script),
    registry: registryOf(script),
    storage: backend.storage,
    checkpointer: backend.checkpointer,
    defaults: { maxSteps: script.turns + 5, tokenBudget: 1_000_000_000 },
  });
  const started = performance.now();
  const threadId = await runtime.createThread(user);
  const events = await collectEvents(await runtime.startRun({ threadId, message: QUESTION, user }));
  const ms = performance.now() - started;
  const finished = events.at(-1);
  assertDone(
    events.filter((event) => event.type === "tool_result").length,
    finished?.type === "run_finished" && finished.stopReason === "final_answer",
    script,
    "opspilot_runtime",
  );
  await runtime.close();
  return ms;
}

/** Wall ms of the same script through LangGraph's prebuilt `createReactAgent` on `backend`'s checkpointer. */
export async function timeReactAgent(backend: SqliteBackend, script: TimedScript): Promise<number> {
  const search = tool(async ({ query }) => JSON.stringify(await readRecord(script, query)), {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    schema: toolSchema,
  });
  const agent = createReactAgent({ llm: scriptOf(script), tools: [search], checkpointer: backend.checkpointer });
  const config = { configurable: { thread_id: randomUUID() }, recursionLimit: script.turns * 2 + 10 };
  const started = performance.now();
  const state = await agent.invoke({ messages: [new HumanMessage(QUESTION)] }, config);
  const ms = performance.now() - started;
  assertAnswered(state.messages, script, "create_react_agent");
  return ms;
}

/** Wall ms of the same script as a hand-written loop: model, tools in parallel, append; no checkpointer. */
export async function timeBareLoop(script: TimedScript): Promise<number> {
  const model = scriptOf(script).bindTools([
    {
      type: "function" as const,
      function: {
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      },
    },
  ]);
  const started = performance.now();
  const messages: BaseMessage[] = [new HumanMessage(QUESTION)];
  for (let turn = 0; turn <= script.turns + 1; turn += 1) {
    const reply = await model.invoke(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) break;
    const outputs = await Promise.all(reply.tool_calls.map((call) => readRecord(script, String(call.args.query))));
    reply.tool_calls.forEach((call, i) =>
      messages.push(new ToolMessage({ content: JSON.stringify(outputs[i]), tool_call_id: call.id!, name: call.name })),
    );
  }
  const ms = performance.now() - started;
  assertAnswered(messages, script, "bare_loop");
  return ms;
}
