import { describe, expect, it } from "vitest";
import {
  AssistantDeltaSchema,
  RunEventSchema,
  type RunEvent,
  type StreamEvent,
} from "../../../src/contracts/events.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import {
  DELTA_EVENT_TYPE,
  RECORDED_EVENT_TYPES,
  follow,
  startConversation,
  withPendingPause,
  type Conversation,
} from "../../../public/thread/run-follower.js";

const THREAD = "thread-1";

/** Numbers events as the server does (per thread, from 1) and checks each against the contract. */
function recorded(...bodies: Array<Record<string, unknown>>): RunEvent[] {
  return bodies.map((body, index) =>
    RunEventSchema.parse({ threadId: THREAD, runId: "run-1", seq: index + 1, ...body }),
  );
}

const fold = (events: StreamEvent[], state: Conversation = startConversation(THREAD)) => events.reduce(follow, state);

const modelStep = (step: number) => ({ step, latencyMs: 5, inputTokens: 10, outputTokens: 2, costUsd: 0 });

const waitingCall = {
  callId: "c1",
  tool: "restart_service",
  args: { service: "payment-service" },
  argsHash: "h1",
  risk: "high" as const,
};

const pause: PauseValue = {
  interruptId: "p1",
  interruptType: "confirm_risky",
  reason: "restart_service is a high-risk action",
  calls: [waitingCall],
};

/** A run that answers in two turns: one call, then the answer. */
const oneCallRun = () =>
  recorded(
    { type: "run_started" },
    { type: "tool_call", callId: "c1", tool: "get_metrics", args: { service: "api" }, model: modelStep(1) },
    { type: "tool_result", callId: "c1", tool: "get_metrics", ok: true, summary: "p95 120 ms", durationMs: 8 },
    { type: "assistant_message", messageId: "m2", content: "All good.", model: modelStep(2) },
    { type: "run_finished", stopReason: "final_answer", steps: 2, durationMs: 40 },
  );

/** The state without its last-applied event, for comparing where the last event differs. */
const settled = ({ applied: _applied, ...state }: Conversation) => state;

/** Freezes a state all the way down, so that a change to it throws. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

describe("the page's run follower", () => {
  it("knows exactly the event types of the stream contract", () => {
    const contract = RunEventSchema.options.map((option) => option.shape.type.value);
    expect([...RECORDED_EVENT_TYPES].sort()).toEqual([...contract].sort());
    expect(DELTA_EVENT_TYPE).toBe(AssistantDeltaSchema.shape.type.value);
  });

  it("takes in an event of every type the contract has", () => {
    const [started, call, result, message, , finished] = recorded(
      { type: "run_started" },
      { type: "tool_call", callId: "c9", tool: "get_logs", args: {} },
      { type: "tool_result", callId: "c9", tool: "get_logs", ok: true, summary: "ok", durationMs: 1 },
      { type: "assistant_message", messageId: "m1", content: "hi" },
      { type: "run_started" },
      { type: "run_finished", stopReason: "final_answer", steps: 1, durationMs: 1 },
    );
    const interrupted = RunEventSchema.parse({
      type: "loop_interrupt",
      threadId: THREAD,
      runId: "run-1",
      seq: 5,
      ...pause,
    });
    const delta = AssistantDeltaSchema.parse({
      type: "assistant_delta",
      threadId: THREAD,
      runId: "run-1",
      step: 1,
      text: "h",
    });
    const byType = new Map<string, StreamEvent>(
      [started, call, result, message, interrupted, finished, delta].map((event) => [event.type, event]),
    );
    const contract = [...RunEventSchema.options.map((option) => option.shape.type.value), DELTA_EVENT_TYPE];
    for (const type of contract) {
      const event = byType.get(type);
      expect(event, `a sample ${type} event`).toBeDefined();
      expect(follow(startConversation(THREAD), event!).applied).toBe(event);
    }
  });

  it("follows a run into steps, calls with their results, and its end", () => {
    const events = oneCallRun();
    const state = fold(events);
    expect(state).toEqual({
      threadId: THREAD,
      seen: new Set([1, 2, 3, 4, 5]),
      lastSeq: 5,
      runs: [
        {
          runId: "run-1",
          state: "final_answer",
          steps: [
            { key: 1, step: 1, streamed: undefined, message: undefined, calls: ["c1"] },
            { key: 2, step: 2, streamed: undefined, message: { messageId: "m2", content: "All good." }, calls: [] },
          ],
          blocks: [
            { kind: "step", key: 1 },
            { kind: "step", key: 2 },
          ],
          openStep: undefined,
          finish: { stopReason: "final_answer", steps: 2, durationMs: 40, tokens: undefined, costUsd: undefined },
        },
      ],
      calls: {
        c1: {
          callId: "c1",
          runId: "run-1",
          step: 1,
          tool: "get_metrics",
          args: { service: "api" },
          state: "ok",
          result: events[2],
        },
      },
      pauses: [],
      waiting: undefined,
      finished: true,
      applied: events[4],
    });
  });

  it("shows nothing twice when the recorded events are replayed after the stream", () => {
    const events = oneCallRun();
    const once = fold(events);
    const again = fold(events, once);
    expect(again.applied).toBeUndefined();
    expect(settled(again)).toEqual(settled(once));
  });

  it("takes each event once however often it comes and in whatever order the copies arrive", () => {
    const events = oneCallRun();
    const [e1, e2, e3, e4, e5] = events;
    const state = fold([e1, e2, e1, e2, e3, e2, e3, e4, e1, e5, e4, e5]);
    expect(settled(state)).toEqual(settled(fold(events)));
    expect(state.runs[0].steps[0].calls).toEqual(["c1"]);
  });

  it("takes a resumed stream that sends the whole run again as only what is new", () => {
    const events = oneCallRun();
    // The page saw the first two events live, then the stream came back with everything.
    const resumed = fold(events, fold(events.slice(0, 2)));
    expect(settled(resumed)).toEqual(settled(fold(events)));
    expect(resumed.runs[0].steps.map((step) => step.calls)).toEqual([["c1"], []]);
  });

  it("waits at a pause and goes on when the resumed run reports the approved call", () => {
    const events = recorded(
      { type: "run_started" },
      { type: "tool_call", ...waitingCall, model: modelStep(1) },
      { type: "loop_interrupt", ...pause },
      { type: "run_finished", stopReason: "interrupted", steps: 1, durationMs: 9 },
      { type: "run_started", resumed: true },
      {
        type: "tool_result",
        callId: "c1",
        tool: "restart_service",
        ok: true,
        summary: "restarted",
        durationMs: 30,
        decision: { action: "approve", by: "alice" },
      },
      { type: "run_finished", stopReason: "final_answer", steps: 2, durationMs: 50, paused: true },
    );
    const paused = fold(events.slice(0, 4));
    expect(paused.waiting).toBe(events[2]);
    expect(paused.pauses).toEqual([{ runId: "run-1", interrupt: events[2] }]);
    expect(paused.calls.c1).toEqual({
      callId: "c1",
      runId: "run-1",
      step: 1,
      tool: "restart_service",
      args: waitingCall.args,
      state: "waiting",
      risk: "high",
    });
    expect(paused.runs[0].blocks).toEqual([
      { kind: "step", key: 1 },
      { kind: "pause", interruptId: "p1" },
    ]);
    expect(paused.runs[0].state).toBe("interrupted");
    expect(paused.finished).toBe(true);

    const resumed = fold(events.slice(4, 5), paused);
    expect(resumed.waiting).toBeUndefined();
    expect(resumed.finished).toBe(false);
    expect(resumed.runs[0].state).toBe("running");

    const done = fold(events.slice(5), resumed);
    expect(done.calls.c1).toEqual({ ...paused.calls.c1, state: "ok", result: events[5] });
    expect(done.runs[0].state).toBe("final_answer");
    expect(done.finished).toBe(true);
  });

  it("records a pause stopped while it waited as cancelled calls and a cancelled run", () => {
    const events = recorded(
      { type: "run_started" },
      { type: "tool_call", ...waitingCall, model: modelStep(1) },
      { type: "loop_interrupt", ...pause },
      { type: "run_finished", stopReason: "interrupted", steps: 1, durationMs: 9 },
      { type: "run_started", resumed: true },
      {
        type: "tool_result",
        callId: "c1",
        tool: "restart_service",
        ok: false,
        errorCode: "cancelled",
        summary: "stopped",
        durationMs: 0,
      },
      { type: "run_finished", stopReason: "cancelled", steps: 1, durationMs: 12, paused: true },
    );
    const state = fold(events);
    expect(state.calls.c1.state).toBe("error");
    expect(state.calls.c1.result?.errorCode).toBe("cancelled");
    expect(state.runs[0].state).toBe("cancelled");
    expect(state.runs[0].finish).toEqual({
      stopReason: "cancelled",
      steps: 1,
      durationMs: 12,
      tokens: undefined,
      costUsd: undefined,
    });
    expect(state.waiting).toBeUndefined();
    expect(state.finished).toBe(true);
  });

  it("keeps parallel calls in their turn whatever order their results come in", () => {
    const events = recorded(
      { type: "run_started" },
      { type: "tool_call", callId: "a", tool: "get_logs", args: { service: "api" }, model: modelStep(1) },
      { type: "tool_call", callId: "b", tool: "get_metrics", args: { service: "api" } },
      { type: "tool_result", callId: "b", tool: "get_metrics", ok: true, summary: "fine", durationMs: 3 },
      {
        type: "tool_result",
        callId: "a",
        tool: "get_logs",
        ok: false,
        errorCode: "timeout",
        summary: "slow",
        durationMs: 900,
      },
    );
    const state = fold(events);
    expect(state.runs[0].steps).toEqual([
      { key: 1, step: 1, streamed: undefined, message: undefined, calls: ["a", "b"] },
    ]);
    expect(state.calls.a).toMatchObject({ step: 1, state: "error", result: events[4] });
    expect(state.calls.b).toMatchObject({ step: 1, state: "ok", result: events[3] });
  });

  it("keeps a turn's streamed text until its message supersedes it, and drops it when the turn calls a tool", () => {
    const delta = (step: number, text: string, threadId = THREAD): StreamEvent =>
      AssistantDeltaSchema.parse({ type: "assistant_delta", threadId, runId: "run-1", step, text });
    const [started, call, message] = recorded(
      { type: "run_started" },
      { type: "tool_call", callId: "c1", tool: "get_logs", args: {}, model: modelStep(1) },
      { type: "assistant_message", messageId: "m2", content: "Found it.", model: modelStep(2) },
    );
    const thinking = fold([started, delta(1, "Let me "), delta(1, "look"), delta(1, "x", "another-thread")]);
    expect(thinking.runs[0].steps[0].streamed).toBe("Let me look");
    expect(follow(thinking, call).runs[0].steps[0].streamed).toBeUndefined();

    const answering = fold([delta(2, "Found"), message, delta(2, " late")], follow(thinking, call));
    expect(answering.runs[0].steps[1]).toEqual({
      key: 2,
      step: 2,
      streamed: undefined,
      message: { messageId: "m2", content: "Found it." },
      calls: [],
    });
    // Deltas carry no sequence number and are never counted as seen.
    expect(answering.seen).toEqual(new Set([1, 2, 3]));
  });

  it("moves past an event of a type it does not know, and passes over another thread's events", () => {
    const [started] = recorded({ type: "run_started" });
    const state = follow(startConversation(THREAD), started);
    const unknown = { type: "run_paused_somehow", threadId: THREAD, runId: "run-1", seq: 7 } as unknown as StreamEvent;
    const afterUnknown = follow(state, unknown);
    expect(afterUnknown).toEqual({ ...state, seen: new Set([1, 7]), lastSeq: 7, applied: undefined });
    const foreign = { ...started, threadId: "thread-2", seq: 8 };
    expect(follow(afterUnknown, foreign)).toBe(afterUnknown);
  });

  it("places calls of turns recorded before turns were numbered in steps of their own", () => {
    const events = recorded(
      { type: "run_started" },
      { type: "tool_call", callId: "a", tool: "get_logs", args: {} },
      { type: "tool_call", callId: "b", tool: "get_logs", args: {} },
      { type: "tool_result", callId: "a", tool: "get_logs", ok: true, summary: "ok", durationMs: 1 },
      { type: "tool_call", callId: "c", tool: "get_logs", args: {} },
      { type: "assistant_message", messageId: "m1", content: "Done." },
    );
    const run = fold(events).runs[0];
    expect(run.steps.map((step) => [step.key, step.calls])).toEqual([
      ["legacy-1", ["a", "b"]],
      ["legacy-2", ["c"]],
    ]);
    expect(run.blocks).toEqual([
      { kind: "step", key: "legacy-1" },
      { kind: "step", key: "legacy-2" },
      { kind: "message", messageId: "m1", content: "Done." },
    ]);
  });

  it("places a pending pause the events never showed in the last run, with its calls waiting", () => {
    const [started] = recorded({ type: "run_started" });
    const state = withPendingPause(follow(startConversation(THREAD), started), pause);
    expect(state.waiting).toMatchObject({ interruptId: "p1", runId: "run-1", type: "loop_interrupt" });
    expect(state.calls.c1).toMatchObject({ state: "waiting", risk: "high", step: "legacy-1" });
    expect(state.runs[0].blocks.at(-1)).toEqual({ kind: "pause", interruptId: "p1" });
    expect(withPendingPause(state, undefined).waiting).toBeUndefined();
  });

  it("keeps one place for a pause asked again after a refused answer", () => {
    const events = recorded(
      { type: "run_started" },
      { type: "loop_interrupt", ...pause },
      { type: "loop_interrupt", ...pause, error: "args changed" },
    );
    const state = fold(events);
    expect(state.runs[0].blocks.filter((block) => block.kind === "pause")).toEqual([
      { kind: "pause", interruptId: "p1" },
    ]);
    expect(state.pauses).toEqual([{ runId: "run-1", interrupt: events[2] }]);
  });

  it("never changes the state it is given", () => {
    const events = oneCallRun();
    const before = deepFreeze(fold(events.slice(0, 2)));
    const copy = structuredClone(before);
    expect(() => fold(events.slice(2), before)).not.toThrow();
    expect(before).toEqual(copy);
  });
});
