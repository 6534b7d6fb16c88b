import { randomUUID } from "node:crypto";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import {
  createAgent,
  humanInTheLoopMiddleware,
  modelCallLimitMiddleware,
  toolCallLimitMiddleware,
  toolRetryMiddleware,
} from "langchain";
import { recursionLimitFor, type RunOptionsInput } from "../src/graph/config.js";
import type { ScriptedChatModel } from "../test/fixtures/scripted-model.js";
import { collectEvents } from "../src/service/events/recorded-events.js";
import { wireLoop } from "../src/app/wire-loop.js";
import type { SqliteBackend } from "../src/storage/sqlite/open-sqlite.js";
import {
  ANSWER,
  BENCH_USER as user,
  QUESTION,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  toolPayload,
  toolSchema,
  workloadRegistry,
  type PayloadSize,
} from "./workload.js";

/** What a finished run did, checked so every peer is seen doing the same work. */
export interface RunCheck {
  /** Tool observations written during the run. */
  toolResults: number;
  /** Whether the run ended with the scripted final answer. */
  answered: boolean;
}

/** One implementation of the loop under test. */
export interface Peer {
  /** Stable key in the JSON results. */
  name: string;
  /** Compiles the peer around a fresh model (not timed); the returned function runs once (timed). */
  prepare(model: ScriptedChatModel): () => Promise<RunCheck>;
}

/** What every peer of one benchmark case shares. */
export interface PeerSetup {
  backend: SqliteBackend;
  payload: PayloadSize;
  steps: number;
}

/** Model turns and answers a run of `steps` tool calls ends with. */
function checkMessages(messages: BaseMessage[]): RunCheck {
  const last = messages.at(-1);
  return {
    toolResults: messages.filter((m) => ToolMessage.isInstance(m)).length,
    answered: last?.getType() === "ai" && last.content === ANSWER,
  };
}

/** A hand-written loop with no checkpointer: the floor. */
export function bareLoop(setup: PeerSetup): Peer {
  const spec = {
    type: "function" as const,
    function: {
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  };
  return {
    name: "bare_loop",
    prepare: (model) => async () => {
      const bound = model.bindTools([spec]);
      const messages: BaseMessage[] = [new HumanMessage(QUESTION)];
      for (let turn = 0; turn <= setup.steps + 1; turn += 1) {
        const reply = await bound.invoke(messages);
        messages.push(reply);
        if (!reply.tool_calls?.length) break;
        for (const call of reply.tool_calls) {
          const output = JSON.stringify(toolPayload(setup.payload, String(call.args.query)));
          messages.push(new ToolMessage({ content: output, tool_call_id: call.id!, name: call.name }));
        }
      }
      return checkMessages(messages);
    },
  };
}

/**
 * LangGraph's prebuilt `createReactAgent` with a LangChain `tool()` around the same function,
 * on the checkpointer opspilot opens, LangGraph's own `SqliteSaver`: the agent as LangGraph ships it.
 */
export function prebuiltReactAgent(setup: PeerSetup): Peer {
  const search = tool(async ({ query }) => JSON.stringify(toolPayload(setup.payload, query)), {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    schema: toolSchema,
  });
  return {
    name: "create_react_agent",
    prepare(model) {
      const agent = createReactAgent({ llm: model, tools: [search], checkpointer: setup.backend.checkpointer });
      return async () => {
        const config = { configurable: { thread_id: randomUUID() }, recursionLimit: setup.steps * 2 + 10 };
        const state = await agent.invoke({ messages: [new HumanMessage(QUESTION)] }, config);
        return checkMessages(state.messages);
      };
    },
  };
}

/**
 * LangChain's `createAgent` with the middlewares that match opspilot's features: human review
 * (configured for the tool, which as a read-only lookup is let through, as opspilot lets it),
 * a tool-call and a model-call limit per run, and retries of failed tool calls.
 */
export function createAgentWithMiddleware(setup: PeerSetup): Peer {
  const search = tool(async ({ query }) => JSON.stringify(toolPayload(setup.payload, query)), {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    schema: toolSchema,
  });
  const limit = setup.steps + 5;
  return {
    name: "create_agent",
    prepare(model) {
      const agent = createAgent({
        model,
        tools: [search],
        checkpointer: setup.backend.checkpointer,
        middleware: [
          humanInTheLoopMiddleware({ interruptOn: { [TOOL_NAME]: false } }),
          toolCallLimitMiddleware({ runLimit: limit }),
          modelCallLimitMiddleware({ runLimit: limit }),
          toolRetryMiddleware({ maxRetries: 2, initialDelayMs: 100 }),
        ],
      });
      return async () => {
        const config = { configurable: { thread_id: randomUUID() }, recursionLimit: setup.steps * 10 + 20 };
        const state = await agent.invoke({ messages: [new HumanMessage(QUESTION)] }, config);
        return checkMessages(state.messages);
      };
    },
  };
}

function opspilotParts(setup: PeerSetup, model: ScriptedChatModel, keepHistory = true) {
  return wireLoop({
    model,
    registry: workloadRegistry(async (query) => toolPayload(setup.payload, query)),
    storage: setup.backend.storage,
    checkpointer: setup.backend.checkpointer,
    defaults: benchOptions(setup),
    keepHistory,
  });
}

/** Run options that let a scripted run of `steps` tool calls finish with its answer. */
function benchOptions(setup: PeerSetup, observationMaxChars?: number): RunOptionsInput {
  return {
    maxSteps: setup.steps + 5,
    tokenBudget: 1_000_000_000,
    ...(observationMaxChars ? { observationMaxChars } : {}),
  };
}

/** opspilot's compiled graph invoked directly, like the prebuilt agent. */
export function opspilotGraph(setup: PeerSetup, observationMaxChars?: number): Peer {
  const options = benchOptions(setup, observationMaxChars);
  return {
    name: observationMaxChars ? `opspilot_graph_${Math.round(observationMaxChars / 1000)}k` : "opspilot_graph",
    prepare(model) {
      const { graph } = opspilotParts(setup, model);
      return async () => {
        const configurable = {
          thread_id: randomUUID(),
          run_id: randomUUID(),
          userId: user.id,
          role: user.role,
          ...options,
        };
        const state = await graph.invoke(
          { messages: [new HumanMessage(QUESTION)] },
          { configurable, recursionLimit: recursionLimitFor({ maxSteps: options.maxSteps! }) },
        );
        return checkMessages(state.messages);
      };
    },
  };
}

/**
 * opspilot through its runtime, as the HTTP API drives it: lease, `values` stream, events
 * recorded; every checkpoint kept (the default), or with `keepHistory: false`
 * (`OPSPILOT_CHECKPOINTS=latest`) the thread compacted to its latest checkpoint at the run's end.
 */
export function opspilotRuntime(setup: PeerSetup, keepHistory = true): Peer {
  return {
    name: keepHistory ? "opspilot_runtime" : "opspilot_runtime_latest",
    prepare(model) {
      const { runtime } = opspilotParts(setup, model, keepHistory);
      return async () => {
        const threadId = await runtime.createThread(user);
        const events = await collectEvents(await runtime.startRun({ threadId, message: QUESTION, user }));
        const finished = events.at(-1);
        const answered =
          events.some((event) => event.type === "assistant_message" && event.content === ANSWER) &&
          finished?.type === "run_finished" &&
          finished.stopReason === "final_answer";
        return { toolResults: events.filter((event) => event.type === "tool_result").length, answered };
      };
    },
  };
}
