import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { INTERRUPT } from "@langchain/langgraph";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { compileGraph } from "../../src/agent/graph.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { useDemoApp } from "../fixtures/demo-app.js";
import { valuesOf } from "../fixtures/checkpoints.js";

// Design §8: LangGraph's own tools can read every thread the app keeps. The app writes a thread
// to its SQLite file; LangGraph's stock SqliteSaver, on its own connection to that file, reads it.

const QUESTION = "Check the payment service's recent errors and compare them with the handling advice in the runbooks";

const demo = useDemoApp("opspilot-stock-reader-");
let threadId: string;
let events: RunEvent[];
let reader: SqliteSaver;

beforeAll(async () => {
  const first = await demo.ask(QUESTION);
  threadId = first.threadId;
  const pause = first.events.find((event) => event.type === "loop_interrupt") as (RunEvent & PauseValue) | undefined;
  if (!pause) throw new Error("the seed question did not pause");
  const decisions = pause.calls.map((call) => ({
    callId: call.callId,
    action: "approve",
    argsHash: call.argsHash,
    params: { environment: "prod" },
  }));
  events = [...first.events, ...(await demo.resume(threadId, decisions))];
  reader = new SqliteSaver(new Database(demo.app.env.OPSPILOT_DB));
});

afterAll(() => {
  reader?.db.close();
});

/** The call ids of the `tool_call` events, in order. */
const callIds = () =>
  events.flatMap((event) => (event.type === "tool_call" ? [{ tool: event.tool, callId: event.callId }] : []));

/** Every checkpoint of the thread, newest first, as the stock saver lists them. */
async function history(): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of reader.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
  return tuples;
}

/** A checkpoint's messages as the graph reads them: rebuilt from the writes the stock saver returns (a delta channel). */
const messagesOf = async (tuple: CheckpointTuple | undefined) =>
  ((await valuesOf(reader, tuple)).messages ?? []) as BaseMessage[];

/** A message as a plain value: its type, content, calls and the call it answers. */
function view(message: BaseMessage) {
  const calls = (message as { tool_calls?: Array<{ id?: string; name: string; args: unknown }> }).tool_calls;
  return {
    type: message.getType(),
    ...(message.getType() === "tool"
      ? {
          name: (message as ToolMessage).name,
          toolCallId: (message as ToolMessage).tool_call_id,
          ok: (JSON.parse(String(message.content)) as { ok: boolean }).ok,
        }
      : { content: message.content }),
    ...(calls?.length ? { calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args })) } : {}),
  };
}

describe("a seed-question thread the app wrote, read with LangGraph's own SqliteSaver", () => {
  it("finished with a final answer after its pause", () => {
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_call",
      "loop_interrupt",
      "run_finished",
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 3 });
  });

  it("reads the latest checkpoint's messages: the question, the calls, their results and the answer", async () => {
    const [resource, docs, logs] = callIds();
    const answer = events.find((event) => event.type === "assistant_message");
    if (answer?.type !== "assistant_message") throw new Error("no answer was streamed");
    const messages = await messagesOf(await reader.getTuple({ configurable: { thread_id: threadId } }));
    expect(messages.map(view)).toEqual([
      { type: "human", content: QUESTION },
      {
        type: "ai",
        content: "",
        calls: [
          { id: resource!.callId, name: "search_resource", args: { query: "payment" } },
          { id: docs!.callId, name: "search_docs", args: { query: "payment" } },
        ],
      },
      { type: "tool", name: "search_resource", toolCallId: resource!.callId, ok: true },
      { type: "tool", name: "search_docs", toolCallId: docs!.callId, ok: true },
      {
        type: "ai",
        content: "",
        calls: [{ id: logs!.callId, name: "search_logs", args: { service: "payment-service", level: "ERROR" } }],
      },
      { type: "tool", name: "search_logs", toolCallId: logs!.callId, ok: true },
      { type: "ai", content: answer.content },
    ]);
    expect(String(messages.at(-1)!.content).startsWith("[demo model]")).toBe(true);
    for (const fact of ["PAY-5031", "24", "DB_POOL_EXHAUSTED", "9", "RB-003"]) expect(answer.content).toContain(fact);
    // The person's answer to the pause reached the call: the logs searched are prod's.
    expect(JSON.parse(String(messages[5]!.content))).toMatchObject({
      ok: true,
      data: { service: "payment-service", environment: "prod", level: "ERROR" },
    });
  });

  it("lists the whole history: a checkpoint per superstep, more than the steps, growing from the input", async () => {
    const tuples = await history();
    const steps = (events.at(-1) as { steps: number }).steps;
    expect(tuples.length).toBeGreaterThan(steps);
    // Newest first, one checkpoint per superstep from the input checkpoint (-1) on.
    expect(tuples.map((tuple) => tuple.metadata?.step)).toEqual(
      Array.from({ length: tuples.length }, (_, index) => tuples.length - 2 - index),
    );
    expect(tuples.at(-1)!.metadata?.source).toBe("input");
    expect(tuples[0]!.checkpoint.id).toBe(
      (await reader.getTuple({ configurable: { thread_id: threadId } }))!.checkpoint.id,
    );
    const counts = (await Promise.all(tuples.map(messagesOf))).map((messages) => messages.length).reverse();
    expect(counts.at(-1)).toBe(7);
    expect(counts[0]).toBeLessThan(7);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    // The checkpoint the run paused at still holds the pause.
    const paused = tuples.filter((tuple) => tuple.pendingWrites?.some(([, channel]) => channel === INTERRUPT));
    expect(paused).toHaveLength(1);
    expect((await messagesOf(paused[0])).length).toBeLessThan(7);
  });

  it("replays the thread through the app's graph compiled on the stock saver", async () => {
    const graph = compileGraph(
      { model: new DemoChatModel(), registry: demo.app.registry, storage: demo.app.storage },
      reader,
    );
    const tuples = await history();
    const states = [];
    for await (const state of graph.getStateHistory({ configurable: { thread_id: threadId } })) states.push(state);
    expect(states.map((state) => state.config.configurable?.checkpoint_id)).toEqual(
      tuples.map((tuple) => tuple.checkpoint.id),
    );
    expect(states[0]!.next).toEqual([]);
    expect((states[0]!.values as { messages: BaseMessage[] }).messages.map(view)).toEqual(
      (await messagesOf(tuples[0])).map(view),
    );
    const paused = states.filter((state) => state.tasks.some((task) => task.interrupts.length > 0));
    expect(paused).toHaveLength(1);
    expect(paused[0]!.tasks.flatMap((task) => task.interrupts.map((pause) => pause.value))).toMatchObject([
      { interruptType: "params_required", calls: [{ tool: "search_logs", args: { service: "payment-service" } }] },
    ]);
  });
});
