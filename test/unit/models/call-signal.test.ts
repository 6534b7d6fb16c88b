import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { withCallSignal } from "../../../src/models/call-signal.js";
import { ScriptedChatModel, answerMessage } from "../../fixtures/scripted-model.js";

const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

/** A client that behaves as the OpenAI SDK does: a listener on the request's signal, never removed. */
async function leakyCall(signal: AbortSignal): Promise<string> {
  signal.addEventListener("abort", () => undefined, { once: true });
  return "answer";
}

describe("withCallSignal", () => {
  it("leaves nothing on the run's signal, whatever the call leaves on its own", async () => {
    const run = new AbortController();
    for (let call = 0; call < 20; call += 1)
      await expect(withCallSignal(run.signal, leakyCall)).resolves.toBe("answer");
    expect(listeners(run.signal)).toBe(0);
  });

  it("aborts the call in flight with the run's reason, and removes its listener when the call fails", async () => {
    const run = new AbortController();
    const reason = new Error("cancelled by the user");
    const inFlight = withCallSignal(
      run.signal,
      (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    );
    run.abort(reason);
    await expect(inFlight).rejects.toBe(reason);
    expect(listeners(run.signal)).toBe(0);
  });

  it("hands an aborted signal to the call as it is", async () => {
    const run = new AbortController();
    run.abort(new Error("gone"));
    await expect(withCallSignal(run.signal, async (signal) => signal)).resolves.toBe(run.signal);
  });
});

describe("the scripted model's latency", () => {
  it("removes its abort listener once the wait is over", async () => {
    const run = new AbortController();
    const model = new ScriptedChatModel({ script: [], onExhausted: "answer", delayMs: 1 });
    for (let call = 0; call < 12; call += 1) await model.invoke([new HumanMessage("hi")], { signal: run.signal });
    expect(listeners(run.signal)).toBe(0);
  });

  it("still stops waiting when the signal aborts", async () => {
    const run = new AbortController();
    const model = new ScriptedChatModel({ script: [answerMessage("late")], delayMs: 10_000 });
    const answer = model.invoke([new HumanMessage("hi")], { signal: run.signal });
    run.abort(new Error("cancelled"));
    await expect(answer).rejects.toThrow("cancelled");
  });
});
