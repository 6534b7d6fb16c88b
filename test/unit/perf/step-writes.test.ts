import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../../fixtures/scripted-model.js";
import { wireLoop } from "../../../src/app/wire-loop.js";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { buildRequest } from "../../../src/context/context-window.js";
import { emptyMemory, type WorkingMemory } from "../../../src/context/memory.js";
import { renderMemory, SHOW_ALL } from "../../../src/context/memory-block.js";
import { turnTexts, splitTurns } from "../../../src/context/turns.js";
import { tokenMeter } from "../../../src/context/request-tokens.js";
import { tokenCounter } from "../../../src/models/token-count.js";
import type { ContextBudget } from "../../../src/models/context-budget.js";
import { boundObservation } from "../../../src/execution/sanitize.js";
import type { Observation } from "../../../src/contracts/observation.js";
import { testTools } from "../../fixtures/test-tools.js";
import { readSteps, scriptedLoop } from "../../fixtures/read-steps.js";

const user = { id: "tester", role: "operator" };

describe("what a step writes", () => {
  it("writes stop only when a run starts or stops: a tool step leaves the unchanged channel alone", async () => {
    const backend = openSqlite(":memory:");
    const steps = 3;
    const { graph } = scriptedLoop(backend, readSteps(steps));
    const saver = backend.checkpointer;
    const written: string[][] = [];
    const putWrites = saver.putWrites.bind(saver);
    saver.putWrites = (config, writes, taskId) => {
      written.push(writes.map(([channel]) => channel).sort());
      return putWrites(config, writes, taskId);
    };
    await graph.invoke(
      { messages: [new HumanMessage("go")] },
      { configurable: { thread_id: "t1", userId: user.id, role: user.role } },
    );
    saver.putWrites = putWrites;
    // The input, then call_model, guard_calls, validate_calls and execute_tools per step, then the answering call_model.
    expect(written).toHaveLength(1 + 4 * steps + 1);
    // A model turn also writes its figures (latency, tokens, cost) to `turn`, read by its events.
    const modelTurn = ["branch:to:guard_calls", "messages", "run", "turn"];
    const guardTurn = ["branch:to:validate_calls", "run"];
    const validateTurn = ["batch", "branch:to:execute_tools", "run"];
    const toolTurn = ["batch", "branch:to:call_model", "memory", "messages", "run"];
    // The run's first turn clears what an earlier run left (batch, stop).
    expect(written[1]).toEqual([...modelTurn, "batch", "stop"].sort());
    for (let step = 1; step <= steps; step += 1) {
      if (step > 1) expect(written[4 * step - 3]).toEqual(modelTurn);
      expect(written[4 * step - 2]).toEqual(guardTurn);
      expect(written[4 * step - 1]).toEqual(validateTurn);
      expect(written[4 * step]).toEqual(toolTurn);
    }
    expect(written.at(-1)).toEqual(["messages", "run", "stop", "turn"]);
    const state = await graph.getState({ configurable: { thread_id: "t1" } });
    expect(state.values.stop).toMatchObject({ reason: "final_answer" });
    backend.close();
  });
});

describe("building a request", () => {
  it("tokenizes neither a memory whose bytes fit its share nor the room when the byte bound already takes every message", () => {
    const budget: ContextBudget = {
      windowTokens: 3_000,
      reserveOutputTokens: 500,
      margin: 1,
      encoding: "cl100k_base",
      family: "test",
    };
    const counted: string[] = [];
    const meter = tokenMeter(budget, {
      encoding: "cl100k_base",
      count: (text) => (counted.push(text), Math.ceil(text.length / 4)),
    });
    // 24 results of 120 bytes: more bytes than the limit, far fewer tokens.
    const history: BaseMessage[] = [new HumanMessage({ id: "h1", content: "check the payment service" })];
    for (let i = 0; i < 24; i += 1) {
      history.push(callsMessage([{ name: "read_a", args: { query: `q${i}` }, id: `c${i}` }]) as BaseMessage);
      history.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: "x".repeat(120) }));
    }
    const memory: WorkingMemory = {
      ...emptyMemory(),
      entries: [{ turn: 1, step: 1, callId: "c0", tool: "read_a", args: "query=q0", outcome: "ok", facts: ["fine"] }],
    };
    const request = buildRequest({ systemPrompt: "You are opspilot.", tools: [], history, memory }, { budget, meter });
    expect(request.messages.slice(1)).toEqual(history);
    expect(request.omitted).toBe(0);
    const rendered = renderMemory(memory, turnTexts(splitTurns(history)), SHOW_ALL);
    expect(rendered.length).toBeGreaterThan(0);
    expect(counted).not.toContain(rendered);
    // Every message was tokenized once, and the request's count is exact.
    expect(request.tokens).toBe(
      3 + request.messages.reduce((sum, message) => sum + meter.message(message), 0) + meter.tools([]),
    );
  });
});

describe("counting a long system message", () => {
  it("counts the lines a grown memory block added, and never fewer tokens than the whole text", () => {
    const budget = { margin: 1, encoding: "o200k_base" as const };
    const counted: string[] = [];
    const real = tokenCounter("o200k_base");
    const meter = tokenMeter(budget, {
      encoding: "o200k_base",
      count: (text) => (counted.push(text), real.count(text)),
    });
    const line = (i: number) =>
      `- step ${i}: search_logs(service=payment-service, query=timeout ${i}) → ok: 12 rows, 3 ERROR, p99 ${i * 37} ms`;
    const block = (n: number) =>
      `You are opspilot.\n\nWorking memory:\n${Array.from({ length: n }, (_, i) => line(i)).join("\n")}`;
    const first = meter.text(block(40));
    expect(first).toBeGreaterThanOrEqual(real.count(block(40)));
    counted.length = 0;
    const second = meter.text(block(41));
    // Only the new line went through the tokenizer.
    expect(counted).toEqual([line(40)]);
    expect(second).toBeGreaterThanOrEqual(real.count(block(41)));
    expect(second).toBeLessThanOrEqual(Math.ceil(real.count(block(41)) * 1.1));
  });
});

describe("an observation's text", () => {
  it("is the JSON of the masked envelope, its data written once, whatever the data holds", () => {
    const envelope = { source: { tool: "read_a" }, fetchedAt: "2026-01-01T00:00:00.000Z" };
    const observations: Observation[] = [
      { ok: true, data: { rows: [{ id: 1, note: "\u0000data\u0000 $& $1" }], total: 1 }, ...envelope },
      { ok: true, data: 'plain text with "quotes" and \n', ...envelope },
      { ok: true, data: null, ...envelope },
      { ok: true, data: undefined, ...envelope },
      { ok: false, errorCode: "timeout", message: "read_a did not answer.", ...envelope },
    ];
    for (const observation of observations) {
      const bounded = boundObservation(observation, 100_000, "c1");
      expect(bounded.truncated).toBe(false);
      expect(bounded.content).toBe(JSON.stringify(bounded.observation));
    }
    // Cut: the preview is the start of the data's JSON text.
    const long = { ok: true as const, data: { rows: Array.from({ length: 200 }, (_, i) => `row ${i}`) }, ...envelope };
    const cut = boundObservation(long, 1_000, "c2");
    expect(cut.truncated).toBe(true);
    const preview = (JSON.parse(cut.content) as { data: string }).data;
    expect(JSON.stringify(long.data).startsWith(preview)).toBe(true);
    expect(cut.content.length).toBeLessThanOrEqual(1_000);
  });
});

/** A model that binds tools as chat models do: into a new runnable each time. */
class BindingModel extends ScriptedChatModel {
  binds = 0;

  override bindTools(tools: Parameters<ScriptedChatModel["bindTools"]>[0]) {
    this.binds += 1;
    super.bindTools(tools);
    return this.withConfig({});
  }
}

describe("binding the tools", () => {
  it("binds the model once while the exposed tools stay the same", async () => {
    const backend = openSqlite(":memory:");
    const model = new BindingModel({
      script: [
        callsMessage([{ name: "read_a", args: { query: "a" } }]),
        callsMessage([{ name: "read_a", args: { query: "b" } }]),
        answerMessage("Done."),
      ],
    });
    const { graph } = wireLoop({
      model,
      registry: new ToolRegistry(testTools()),
      storage: backend.storage,
      checkpointer: backend.checkpointer,
    });
    const state = await graph.invoke(
      { messages: [new HumanMessage("go")] },
      { configurable: { thread_id: "t1", userId: user.id, role: user.role } },
    );
    expect(state.messages.at(-1)!.content).toBe("Done.");
    expect(model.binds).toBe(1);
    backend.close();
  });
});
