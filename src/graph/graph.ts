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

/** The state a routing function or a stage sees: this task's small channels applied, its messages appended. */
function applied(state: AgentStateType, update: AgentStateUpdate): AgentStateType {
  const added = (update.messages ?? []) as AgentStateType["messages"];
  return { ...state, ...update, messages: [...state.messages, ...added], memory: state.memory } as AgentStateType;
}

/** `view` with a stage's small channels applied; a stage that adds messages has the whole update applied again. */
function appliedOver(view: AgentStateType, stage: AgentStateUpdate, whole: () => AgentStateType): AgentStateType {
  if (stage.messages !== undefined) return whole();
  return { ...view, ...stage, messages: view.messages, memory: view.memory } as AgentStateType;
}

/**
 * A node that also picks the next one: the routing function sees the state with this
 * node's small channels applied. Routing inside the node's own `Command` spares LangGraph
 * a separate branch runnable per step.
 */
function routed<Next extends string>(node: Node, route: (state: AgentStateType) => Next) {
  return async (state: AgentStateType, config: LangGraphRunnableConfig) => {
    const update = await node(state, config);
    return new Command({ update, goto: route(applied(state, update)) });
  };
}

/**
 * `call_model` followed, in the same task, by the pure stages `guard_calls` and
 * `validate_calls` when the reply proposes calls: each stage sees the state with what came
 * before it applied, and the `Command` goes straight to the node that acts next. One
 * superstep, so one checkpoint, holds the reply, the guard's verdict and the planned batch.
 */
function modelTurn(callModel: Node, guardCalls: Node, validateCalls: Node) {
  return async (state: AgentStateType, config: LangGraphRunnableConfig) => {
    let update = await callModel(state, config);
    // The reply is appended once; each stage's small channels are applied over that view.
    let view = applied(state, update);
    let next: string = routeAfterModel(view);
    if (next === "guard_calls") {
      const guarded = await guardCalls(view, config);
      update = { ...update, ...guarded };
      view = appliedOver(view, guarded, () => applied(state, update));
      next = routeAfterGuard(view);
    }
    if (next === "validate_calls") {
      const validated = await validateCalls(view, config);
      update = { ...update, ...validated };
      view = appliedOver(view, validated, () => applied(state, update));
      next = routeAfterValidate(view);
    }
    return new Command({ update, goto: next });
  };
}

/** The uncompiled graph of design §1. */
export function buildGraph(deps: GraphDeps) {
  const cancellations = deps.cancellations ?? noCancelSignals;
  const callModel = makeCallModel({ ...deps, cancellations, recorder: deps.storage });
  return new StateGraph({ state: AgentState, input: AgentInput, context: RunOptionsSchema })
    .addNode("call_model", modelTurn(callModel, makeGuardCalls(deps), makeValidateCalls(deps)), {
      ends: ["execute_tools", "review_calls", "finish_run", END],
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
