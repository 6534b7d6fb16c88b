import { describe, expect, it } from "vitest";
import { GraphRecursionError } from "@langchain/langgraph";
import { answerMessage, callsMessage } from "../../../src/models/scripted-model.js";
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
