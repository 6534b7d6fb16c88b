import { END, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AgentInput, AgentState, agentState } from "../graph/state.js";
import { RunOptionsSchema } from "../graph/config.js";
import {
  routeAfterExecute,
  routeAfterGuard,
  routeAfterModel,
  routeAfterReview,
  routeAfterValidate,
} from "../graph/routing.js";
import { makeCallModel } from "../nodes/call-model.js";
import { makeGuardCalls } from "../nodes/guard-calls.js";
import { makeValidateCalls } from "../nodes/validate-calls.js";
import { makeReviewCalls } from "../nodes/review-calls.js";
import { makeExecuteTools } from "../nodes/execute-tools.js";
import { makeFinishRun } from "../nodes/finish-run.js";
import { noCancelSignals, type CancelSignals } from "../graph/context.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Storage } from "../storage/types.js";
import type { ContextBudget } from "../models/context-budget.js";
import type { ToolRateLimits } from "../execution/tool-rate-limits.js";

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
  /** The `rateLimit` budgets, shared by every process on PostgreSQL (this process's memory when omitted). */
  rateLimits?: ToolRateLimits;
  /** False when only each thread's latest checkpoint is kept: every checkpoint then stores the whole state. */
  keepHistory?: boolean;
}

/** The state when only the latest checkpoint is kept: every checkpoint stores every channel whole. */
const LATEST_ONLY = agentState({ delta: false });

/**
 * The uncompiled graph of design §1: six nodes, each routed by a pure function of the state
 * LangGraph's reducers made, so Studio draws every decision and `updates` names its node.
 */
export function buildGraph(deps: GraphDeps) {
  const cancellations = deps.cancellations ?? noCancelSignals;
  return new StateGraph({
    state: deps.keepHistory === false ? LATEST_ONLY : AgentState,
    input: AgentInput,
    context: RunOptionsSchema,
  })
    .addNode("call_model", makeCallModel({ ...deps, cancellations, recorder: deps.storage }))
    .addNode("guard_calls", makeGuardCalls(deps))
    .addNode("validate_calls", makeValidateCalls(deps))
    .addNode("review_calls", makeReviewCalls({ registry: deps.registry, recorder: deps.storage }))
    .addNode("execute_tools", makeExecuteTools({ ...deps, cancellations }))
    .addNode("finish_run", makeFinishRun({ recorder: deps.storage }))
    .addEdge(START, "call_model")
    .addConditionalEdges("call_model", routeAfterModel, ["guard_calls", "finish_run", END])
    .addConditionalEdges("guard_calls", routeAfterGuard, ["validate_calls", "finish_run"])
    .addConditionalEdges("validate_calls", routeAfterValidate, ["execute_tools", "review_calls"])
    .addConditionalEdges("review_calls", routeAfterReview, ["review_calls", "execute_tools"])
    .addConditionalEdges("execute_tools", routeAfterExecute, ["call_model", "review_calls", "finish_run"])
    .addEdge("finish_run", END);
}

/**
 * Compiles the graph with a checkpointer (omit it when a LangGraph server supplies one). No node
 * reads LangGraph's store, so none is compiled in: a graph with a store polls it on a timer for
 * as long as each run lives.
 */
export function compileGraph(deps: GraphDeps, checkpointer?: BaseCheckpointSaver) {
  return buildGraph(deps).compile({ checkpointer, name: "opspilot" });
}

/** The compiled graph's type. */
export type OpsPilotGraph = ReturnType<typeof compileGraph>;
