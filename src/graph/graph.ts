import {
  Command,
  END,
  START,
  StateGraph,
  type BaseCheckpointSaver,
  type LangGraphRunnableConfig,
} from "@langchain/langgraph";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AgentInput, AgentState, type AgentStateType, type AgentStateUpdate } from "./state.js";
import { RunOptionsSchema } from "./config.js";
import { routeAfterExecute, routeAfterGuard, routeAfterModel, routeAfterValidate } from "./routing.js";
import { makeCallModel } from "../nodes/call-model.js";
import { makeGuardCalls } from "../nodes/guard-calls.js";
import { makeValidateCalls } from "../nodes/validate-calls.js";
import { makeReviewCalls } from "../nodes/review-calls.js";
import { makeExecuteTools } from "../nodes/execute-tools.js";
import { makeFinishRun } from "../nodes/finish-run.js";
import { noCancelSignals, type CancelSignals } from "./context.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Storage } from "../storage/types.js";
import type { ContextBudget } from "../models/context-budget.js";

/** Everything the graph's nodes depend on. */
export interface GraphDeps {
  /** Chat model (demo, OpenAI-compatible, or scripted in tests). */
  model: BaseChatModel;
  /** Tools the model may call. */
  registry: ToolRegistry;
  /** Journal, raw results and records. */
  storage: Storage;
  /** Cancel signals of this process's runs. */
  cancellations?: CancelSignals;
  /** Overrides the default system prompt. */
  systemPrompt?: string;
  /** The model's context window and how to count it (the demo model's when omitted); every request fits it. */
  contextBudget?: ContextBudget;
}

type Node = (state: AgentStateType, config: LangGraphRunnableConfig) => AgentStateUpdate | Promise<AgentStateUpdate>;

/**
 * A node that also picks the next one: the routing function sees the state with this
 * node's small channels applied. Routing inside the node's own `Command` spares LangGraph
 * a separate branch runnable per step.
 */
function routed<Next extends string>(node: Node, route: (state: AgentStateType) => Next) {
  return async (state: AgentStateType, config: LangGraphRunnableConfig) => {
    const update = await node(state, config);
    return new Command({ update, goto: route({ ...state, ...update, messages: state.messages } as AgentStateType) });
  };
}

/** The uncompiled graph of design §1. */
export function buildGraph(deps: GraphDeps) {
  const cancellations = deps.cancellations ?? noCancelSignals;
  return new StateGraph({ state: AgentState, input: AgentInput, context: RunOptionsSchema })
    .addNode("call_model", routed(makeCallModel({ ...deps, cancellations, recorder: deps.storage }), routeAfterModel), {
      ends: ["guard_calls", "finish_run", END],
    })
    .addNode("guard_calls", routed(makeGuardCalls(deps), routeAfterGuard), { ends: ["validate_calls", "finish_run"] })
    .addNode("validate_calls", routed(makeValidateCalls(deps), routeAfterValidate), {
      ends: ["execute_tools", "review_calls"],
    })
    .addNode("review_calls", makeReviewCalls({ registry: deps.registry, recorder: deps.storage }))
    .addNode("execute_tools", routed(makeExecuteTools({ ...deps, cancellations }), routeAfterExecute), {
      ends: ["call_model", "review_calls", "finish_run"],
    })
    .addNode("finish_run", makeFinishRun({ recorder: deps.storage }))
    .addEdge(START, "call_model")
    .addEdge("review_calls", "execute_tools")
    .addEdge("finish_run", END);
}

/** Compiles the graph with a checkpointer (omit it when a LangGraph server supplies one). */
export function compileGraph(deps: GraphDeps, checkpointer?: BaseCheckpointSaver) {
  return buildGraph(deps).compile({ checkpointer, name: "opspilot" });
}

/** The compiled graph's type. */
export type OpsPilotGraph = ReturnType<typeof compileGraph>;
