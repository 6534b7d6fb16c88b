import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolMessage } from "@langchain/core/messages";
import { answerMessage, callsMessage, type ScriptStep } from "../../fixtures/scripted-model.js";
import { contextBudgetFor, inputLimitOf } from "../../../src/models/context-budget.js";
import { tokenMeter } from "../../../src/context/request-tokens.js";
import { compactMemory, renderMemory, SHOW_ALL, type TurnTexts } from "../../../src/context/memory-block.js";
import { defaultFacts, emptyMemory, factsOf, keyArgs, type MemoryEntry } from "../../../src/context/memory.js";
import { defineTool, type ToolDefinition } from "../../../src/tools/types.js";
import { createHarness } from "../../fixtures/harness.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

/** About 20 KB of log lines for turn `turn`, with facts only that turn has. */
function bigResult(turn: number) {
  const lines = Array.from({ length: 120 }, (_, i) =>
    turn % 2 === 0
      ? `2026-11-30T08:${String(i % 60).padStart(2, "0")}:00Z ERROR 支付服务 请求 ${i} 失败：数据库连接池耗尽，等待 ${i * 7} 毫秒`
      : `2026-11-30T08:${String(i % 60).padStart(2, "0")}:00Z ERROR payment-service request ${i} failed: pool exhausted`,
  );
  return { turn, deploy: `DEP-${turn}${turn}0${turn}${turn}`, lines };
}

const searchIncident: ToolDefinition = defineTool({
  name: "search_incident",
  description: "Search the incident log of a turn.",
  schema: z.object({ turn: z.number().int().describe("Which turn") }),
  readOnly: true,
  risk: "low",
  timeoutMs: 2_000,
  run: async ({ turn }) => bigResult(turn),
  summarize: (result) => {
    const found = result as ReturnType<typeof bigResult>;
    return [`deploy ${found.deploy}`, `${found.lines.length} error lines`];
  },
});

/** Calls the tool when the user asks, answers once the result is in. */
const followTheUser: ScriptStep = ({ messages }) => {
  const last = messages.at(-1)!;
  if (last.getType() !== "human") return answerMessage(`Answered turn ${String(last.content).length}.`);
  const turn = Number(/turn (\d+)/.exec(String(last.content))?.[1] ?? 0);
  return callsMessage([{ name: "search_incident", args: { turn } }]);
};

describe("working memory", () => {
  it("leaves one entry per finished call, with the tool's own facts, its key args and its call id", async () => {
    const harness = createHarness({
      tools: [searchIncident],
      script: [callsMessage([{ name: "search_incident", args: { turn: 2 }, id: "c1" }]), answerMessage("done")],
    });
    close = harness.close;
    const { threadId } = await harness.ask("what happened in turn 2?");
    const { memory } = await harness.state(threadId);
    expect(memory).toEqual({
      entries: [
        {
          turn: 1,
          step: 1,
          callId: "c1",
          tool: "search_incident",
          args: "turn=2",
          outcome: "ok",
          facts: ["deploy DEP-22022", "120 error lines"],
        },
      ],
      digests: [],
    });
  });

  it("remembers a failure by its error code and message", async () => {
    const harness = createHarness({
      tools: [searchIncident],
      script: [callsMessage([{ name: "search_incident", args: { turn: "two" }, id: "c1" }]), answerMessage("sorry")],
    });
    close = harness.close;
    const { threadId } = await harness.ask("what happened?");
    const [entry] = (await harness.state(threadId)).memory.entries;
    expect(entry).toMatchObject({ callId: "c1", outcome: "invalid_args", args: "turn=two" });
    expect(entry!.facts).toHaveLength(1);
  });

  it("carries a fact first seen at turn 2 into the request of turn 12, every request within the window", async () => {
    const budget = contextBudgetFor({ model: "openai:gpt-4o-mini", contextTokens: 8_000 });
    const meter = tokenMeter(budget);
    const harness = createHarness({
      tools: [searchIncident],
      script: Array.from({ length: 24 }, () => followTheUser),
      contextBudget: budget,
    });
    close = harness.close;
    const threadId = await harness.runtime.createThread(harness.user);
    for (let turn = 1; turn <= 12; turn += 1) {
      const { events } = await harness.askOn(
        threadId,
        turn % 2 ? `What broke in turn ${turn}?` : `第 turn ${turn} 轮出了什么问题？`,
      );
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    }
    expect(harness.violations).toEqual([]);
    const sizes = harness.model.calls.map((call) => 3 + call.messages.reduce((sum, m) => sum + meter.message(m), 0));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(inputLimitOf(budget));
    const turn12 = harness.model.calls[22]!;
    expect(String(turn12.messages.at(-1)!.content)).toContain("turn 12");
    expect(String(turn12.messages[0]!.content)).toContain("DEP-22022");
    // The thread itself keeps every message.
    const { messages } = await harness.state(threadId);
    expect(messages.filter((m) => ToolMessage.isInstance(m))).toHaveLength(12);
  }, 60_000);
});

describe("memory facts", () => {
  it("falls back to the default facts when a tool has no summarize or its summarize throws", () => {
    const result = {
      total: 3,
      service: "payment-service",
      items: [{ id: "PAY-5031" }, { id: "PAY-4002" }],
      nested: {},
    };
    const throwing = {
      ...searchIncident,
      summarize: () => {
        throw new Error("boom");
      },
    } as ToolDefinition;
    expect(factsOf(undefined, result)).toEqual([
      "total: 3",
      "service: payment-service",
      "items: 2 item(s) (PAY-5031, PAY-4002)",
      "codes: PAY-5031, PAY-4002",
    ]);
    expect(factsOf(throwing, result)).toEqual(factsOf(undefined, result));
    expect(defaultFacts("first line\nsecond line with INC-20931")).toEqual(["first line", "codes: INC-20931"]);
    // The caller's JSON text of the result gives the same facts as the result's own.
    expect(factsOf(undefined, result, JSON.stringify(result))).toEqual(factsOf(undefined, result));
  });

  it("keeps the key args short and masked", () => {
    expect(
      keyArgs({
        service: "payment-service",
        token: "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij",
        limit: 20,
        filter: { a: 1 },
      }),
    ).toBe("service=payment-service token=[masked] limit=20");
  });
});

describe("merging memory", () => {
  const texts: TurnTexts = {
    asked: new Map(Array.from({ length: 30 }, (_, i) => [i + 1, `question ${i + 1}`])),
    answered: new Map(),
    currentTurn: 30,
  };
  const entries: MemoryEntry[] = Array.from({ length: 29 }, (_, i) => ({
    turn: i + 1,
    step: 1,
    callId: `call_${i + 1}`,
    tool: i % 3 === 0 ? "search_docs" : "search_logs",
    args: `service=svc-${i + 1}`,
    outcome: i === 4 ? "not_found" : "ok",
    facts: [`fact of turn ${i + 1}`, `second fact of turn ${i + 1}`],
  }));
  const meter = tokenMeter(contextBudgetFor({ model: "demo" }));

  it("folds the oldest turns into digests that keep the first facts, until the block fits", () => {
    const memory = { ...emptyMemory(), entries };
    const compacted = compactMemory(memory, { maxTokens: 300, count: meter.text, texts });
    expect(meter.text(renderMemory(compacted, texts, SHOW_ALL))).toBeLessThanOrEqual(300);
    expect(compacted.digests[0]).toMatchObject({ fromTurn: 1, asked: ["question 1", "question 2"] });
    expect(compacted.digests[0]!.facts.slice(0, 3)).toEqual([
      "fact of turn 1",
      "second fact of turn 1",
      "fact of turn 2",
    ]);
    // The same memory always merges the same way.
    expect(compactMemory(memory, { maxTokens: 300, count: meter.text, texts })).toEqual(compacted);
  });

  it("merges the run in progress last, and never its latest step", () => {
    const current = entries.map((entry, i) => ({ ...entry, turn: 30, step: i + 1 }));
    const older = { ...emptyMemory(), entries: [...entries.slice(0, 3), ...current] };
    const compacted = compactMemory(older, { maxTokens: 200, count: meter.text, texts });
    expect(meter.text(renderMemory(compacted, texts, SHOW_ALL))).toBeLessThanOrEqual(200);
    expect(compacted.entries.at(-1)).toEqual(current.at(-1));
    expect(compacted.entries.every((entry) => entry.turn === 30)).toBe(true);
    expect(compacted.entries.length).toBeLessThan(current.length);
  });

  it("leaves the memory as it is while its block fits", () => {
    const memory = { ...emptyMemory(), entries: entries.slice(0, 2) };
    expect(compactMemory(memory, { maxTokens: 10_000, count: meter.text, texts })).toBe(memory);
  });
});
