import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ScriptedChatModel, answerMessage, callsMessage, type ScriptedCall } from "../test/fixtures/scripted-model.js";

/** Most model calls one server answers; far above what the benchmark asks for. */
const MAX_MODEL_CALLS = 5_000;

/** Two read-only lookups with the demo tools, one per step, then an answer: a plan from the thread itself, so runs can interleave. */
function plan(call: ScriptedCall) {
  const lastUser = call.messages.findLastIndex((message: BaseMessage) => HumanMessage.isInstance(message));
  const observations = call.messages.slice(lastUser + 1).filter((message) => ToolMessage.isInstance(message)).length;
  if (observations === 0) return callsMessage([{ name: "search_resource", args: { query: "payment" } }]);
  if (observations === 1) return callsMessage([{ name: "search_docs", args: { query: "PAY-5031 DB_POOL_EXHAUSTED" } }]);
  return answerMessage("payment-service: DB pool exhaustion; follow the PAY-5031 runbook.");
}

/** The scripted model every load-benchmark server runs (opspilot's and the LangGraph API server), answering after `delayMs`. */
export function loadModel(delayMs: number): ScriptedChatModel {
  return new ScriptedChatModel({
    script: Array.from({ length: MAX_MODEL_CALLS }, () => plan),
    onExhausted: "answer",
    delayMs,
  });
}
