import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { createHarness, eventTypes, shape } from "../../fixtures/harness.js";
import { Timeline, testTools } from "../../fixtures/test-tools.js";

describe("the core loop", () => {
  it("runs two read-only tools of one turn in parallel and pairs both results", async () => {
    const timeline = new Timeline();
    const harness = createHarness({
      tools: testTools({ timeline, readDelayMs: 200 }),
      script: [
        callsMessage([
          { name: "read_a", args: { query: "x" } },
          { name: "read_b", args: { query: "y" } },
        ]),
        answerMessage("Both looked up."),
      ],
    });
    const { events, messages } = await harness.ask("look up x and y");
    const toolPhase =
      Math.max(timeline.at("read_a", "end"), timeline.at("read_b", "end")) -
      Math.min(timeline.at("read_a", "start"), timeline.at("read_b", "start"));
    expect(toolPhase).toBeGreaterThanOrEqual(195);
    expect(toolPhase).toBeLessThan(380);
    expect(timeline.at("read_b", "start")).toBeLessThan(timeline.at("read_a", "end"));
    expect(eventTypes(events)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(shape(messages)).toEqual(["human", "ai:read_a+read_b", "tool:read_a:ok", "tool:read_b:ok", "ai"]);
    const finished = events.at(-1)!;
    expect(finished).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 2 });
  });

  it("turns a throwing tool into an internal observation without stack text and still answers", async () => {
    const harness = createHarness({ script: [callsMessage([{ name: "explode" }]), answerMessage("The tool failed.")] });
    const { events, messages } = await harness.ask("explode please");
    const observation = JSON.parse(String(messages[2]!.content));
    expect(observation).toEqual({
      ok: false,
      errorCode: "internal",
      message: "explode failed with an internal error.",
      source: { tool: "explode" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(JSON.stringify(events)).not.toMatch(/hunter22|app\.js|Object\.<anonymous>/);
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer" });
  });
});
