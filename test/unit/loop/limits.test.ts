import { describe, expect, it } from "vitest";
import { GraphRecursionError } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { createHarness, shape } from "../../fixtures/harness.js";

const read = (name: string, query: string) => callsMessage([{ name, args: { query } }]);

describe("limits", () => {
  it("stops the same call repeated with loop_detected and a readable answer", async () => {
    const harness = createHarness({
      script: [read("read_a", "x"), read("read_a", "x"), read("read_a", "x"), answerMessage("never")],
    });
    const { events, messages } = await harness.ask("loop");
    expect(events.at(-1)).toMatchObject({ stopReason: "loop_detected", steps: 3 });
    expect(shape(messages)).toEqual([
      "human",
      "ai:read_a",
      "tool:read_a:ok",
      "ai:read_a",
      "tool:read_a:ok",
      "ai:read_a",
      "tool:read_a:skipped",
      "ai",
    ]);
    expect(String(messages.at(-1)!.content)).toContain("I stopped because I was repeating the same calls.");
    expect(String(messages.at(-1)!.content)).toContain("read_a:");
  });

  it("stops an A→B→A→B oscillation with loop_detected", async () => {
    const harness = createHarness({
      script: [
        read("read_a", "x"),
        read("read_b", "y"),
        read("read_a", "x"),
        read("read_b", "y"),
        answerMessage("never"),
      ],
    });
    const { events, messages } = await harness.ask("oscillate");
    expect(events.at(-1)).toMatchObject({ stopReason: "loop_detected", steps: 4 });
    expect(String(messages.at(-1)!.content)).toContain("alternated between two sets");
  });

  it("stops at a tightened maxSteps with max_steps, never a GraphRecursionError", async () => {
    const harness = createHarness({
      script: Array.from({ length: 10 }, (_, i) => read("read_a", `q${i}`)),
      options: { maxSteps: 2 },
    });
    const { events, messages } = await harness.ask("keep going");
    expect(events.at(-1)).toMatchObject({ stopReason: "max_steps", steps: 3 });
    expect(String(messages.at(-1)!.content)).toContain("It reached the limit of 2 steps.");
    expect(events.some((event) => JSON.stringify(event).includes(GraphRecursionError.name))).toBe(false);
  });

  it("stops consecutive failures with too_many_fails", async () => {
    const harness = createHarness({
      script: [
        callsMessage([{ name: "missing", args: { id: "1" } }]),
        callsMessage([{ name: "missing", args: { id: "2" } }]),
        callsMessage([{ name: "missing", args: { id: "3" } }]),
        callsMessage([{ name: "missing", args: { id: "4" } }]),
      ],
      options: { maxToolFailsInRow: 3 },
    });
    const { events, messages } = await harness.ask("find them");
    expect(events.at(-1)).toMatchObject({ stopReason: "too_many_fails", steps: 4 });
    expect(String(messages.at(-1)!.content)).toContain("Tools failed 3 times in a row.");
  });

  it("counts failed steps, not failed calls, so a model can correct a mixed step and a cut-off call", async () => {
    const truncated = new AIMessage({
      content: "",
      invalid_tool_calls: [{ name: "read_a", args: '{"query": "pay', id: "cut1", error: "Unterminated string" }],
    });
    const harness = createHarness({
      script: [
        callsMessage([
          { name: "read_a", args: { query: "x" }, id: "good1" },
          { name: "no_such_tool", args: {}, id: "unknown1" },
          { name: "read_b", args: { query: 42 }, id: "bad1" },
        ]),
        truncated,
        callsMessage([{ name: "read_b", args: { query: "fixed" }, id: "good2" }]),
        answerMessage("done"),
      ],
      options: { maxToolFailsInRow: 2 },
    });
    const { events, messages } = await harness.ask("mixed");
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer", steps: 4 });
    expect(shape(messages)).toEqual([
      "human",
      "ai:read_a+no_such_tool+read_b",
      "tool:read_a:ok",
      "tool:no_such_tool:unknown_tool",
      "tool:read_b:invalid_args",
      "ai",
      "tool:read_a:invalid_args",
      "ai:read_b",
      "tool:read_b:ok",
      "ai",
    ]);
    expect(harness.violations).toEqual([]);
  });

  it("does not count rejected, cancelled or skipped calls as failed steps", async () => {
    const harness = createHarness({
      script: [
        callsMessage([{ name: "missing", args: { id: "1" } }]),
        callsMessage([{ name: "write_high", args: { target: "a", environment: "prod" }, id: "w1" }]),
        callsMessage([{ name: "missing", args: { id: "2" } }]),
        answerMessage("gave up looking"),
      ],
      options: { maxToolFailsInRow: 2 },
    });
    const first = await harness.ask("find it");
    expect(first.events.at(-1)).toMatchObject({ stopReason: "interrupted" });
    const { events } = await harness.resume(first.threadId, { decisions: [{ callId: "w1", action: "reject" }] });
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer", steps: 4 });
  });

  it("stops an A→B→C→A→B→C cycle with loop_detected", async () => {
    const harness = createHarness({
      script: [
        read("read_a", "x"),
        read("read_b", "y"),
        read("read_a", "z"),
        read("read_a", "x"),
        read("read_b", "y"),
        read("read_a", "z"),
        answerMessage("never"),
      ],
    });
    const { events, messages } = await harness.ask("go round");
    expect(events.at(-1)).toMatchObject({ stopReason: "loop_detected", steps: 6 });
    expect(String(messages.at(-1)!.content)).toContain("The calls went round a cycle of 3 sets (A→B→C→A→B→C).");
  });

  it("stops a write re-proposed after each rejection once the run used its approval pauses", async () => {
    const propose = (target: string) =>
      callsMessage([{ name: "write_high", args: { target, environment: "prod" }, id: `w-${target}` }]);
    const harness = createHarness({
      script: [propose("a"), propose("b"), propose("c"), propose("d"), answerMessage("never")],
    });
    let result = await harness.ask("change something");
    for (const target of ["a", "b", "c"]) {
      expect(result.events.at(-1)).toMatchObject({ stopReason: "interrupted" });
      result = await harness.resume(result.threadId, {
        decisions: [{ callId: `w-${target}`, action: "reject", message: "no" }],
      });
    }
    expect(result.events.at(-1)).toMatchObject({ stopReason: "loop_detected", steps: 4 });
    expect(result.events.filter((event) => event.type === "loop_interrupt")).toEqual([]);
    expect(String(result.messages.at(-1)!.content)).toContain(
      "It already asked for approval 3 times in this run and proposed another action that needs approval.",
    );
    expect(shape(result.messages).slice(-2)).toEqual(["tool:write_high:skipped", "ai"]);
  });

  it("stops an exceeded wall time with timeout", async () => {
    const harness = createHarness({
      script: [read("read_a", "1"), read("read_a", "2"), answerMessage("never")],
      modelDelayMs: 80,
      options: { maxWallTimeMs: 100 },
    });
    const { events, messages } = await harness.ask("slow");
    expect(events.at(-1)).toMatchObject({ stopReason: "timeout" });
    expect(String(messages.at(-1)!.content)).toContain("I stopped because the time limit was reached.");
  });

  it("stops a spent token budget with budget_exhausted", async () => {
    const harness = createHarness({
      script: [read("read_a", "1"), answerMessage("never")],
      options: { tokenBudget: 1 },
    });
    const { events } = await harness.ask("expensive");
    expect(events.at(-1)).toMatchObject({ stopReason: "budget_exhausted", steps: 1 });
  });

  it("answers in Chinese when the user wrote Chinese", async () => {
    const harness = createHarness({ script: [read("read_a", "x"), read("read_a", "x"), read("read_a", "x")] });
    const { messages } = await harness.ask("查一下");
    expect(String(messages.at(-1)!.content)).toContain("我在重复同样的调用，所以先停在这里。");
  });
});
