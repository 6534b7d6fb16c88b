import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { END } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { RunOptionsSchema, recursionLimitFor } from "../../../src/graph/config.js";
import { routeAfterExecute, routeAfterGuard, routeAfterModel, routeAfterValidate } from "../../../src/graph/routing.js";
import type { AgentStateType, RunInfo } from "../../../src/graph/state.js";
import type { PlannedCall } from "../../../src/contracts/calls.js";
import { argsHash, canonicalJson } from "../../../src/contracts/formats/canonical.js";
import { checkLimits, cycleLength, failedStepsAfter, fingerprint } from "../../../src/graph/guard.js";
import { checkPairing } from "../../../src/graph/calls/pairing.js";
import { maskSensitive } from "../../../src/execution/sanitize.js";

const ai = (ids: string[]) =>
  new AIMessage({
    content: "",
    tool_calls: ids.map((id) => ({ id, name: "t", args: {}, type: "tool_call" as const })),
  });
const tool = (id: string) => new ToolMessage({ tool_call_id: id, content: "{}" });

describe("checkPairing", () => {
  it("reports unanswered, duplicated and orphaned call ids", () => {
    expect(checkPairing([new HumanMessage("q"), ai(["a", "b"]), tool("a"), tool("a"), tool("z")])).toEqual({
      unanswered: ["b"],
      duplicated: ["a"],
      orphaned: ["z"],
    });
    expect(checkPairing([new HumanMessage("q"), ai(["a"]), tool("a")])).toEqual({
      unanswered: [],
      duplicated: [],
      orphaned: [],
    });
  });
});

describe("canonical args", () => {
  it("hashes equal args equally whatever the key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    expect(argsHash({ a: 1, b: 2 })).toBe(argsHash({ b: 2, a: 1 }));
    expect(fingerprint("t", { b: 2, a: 1 })).toBe('t:{"a":1,"b":2}');
  });
});

describe("maskSensitive", () => {
  it("masks emails, phone numbers, ID numbers, keys and tokens", () => {
    const text =
      "mail ops@corp.example.com, call +86 138-1234-5678 or 13912345678, id 11010519491231002X, key sk-abcdefghijklmnopqrstuv, Authorization: Bearer abc.def.ghijklmnop, password=hunter22";
    expect(maskSensitive(text)).toBe(
      "mail [email masked], call [phone masked] or [phone masked], id [id number masked], key [key masked], Authorization: Bearer [token masked], password=[masked]",
    );
  });
});

const run = (overrides: Partial<RunInfo> = {}): RunInfo => ({
  runId: "r",
  startedAt: 0,
  lastActiveAt: 0,
  steps: 1,
  failsInRow: 0,
  recentSteps: [],
  tokens: 0,
  costUsd: 0,
  language: "en",
  resumed: false,
  ...overrides,
});
const options = RunOptionsSchema.parse({});

describe("checkLimits", () => {
  it("lets a healthy run go on and names the first limit hit", () => {
    expect(checkLimits({ run: run(), options, now: 10 })).toBeNull();
    expect(checkLimits({ run: run({ steps: 9 }), options, now: 10 })?.reason).toBe("max_steps");
    expect(checkLimits({ run: run(), options, now: 120_001 })?.reason).toBe("timeout");
    expect(checkLimits({ run: run({ tokens: 200_001 }), options, now: 10 })?.reason).toBe("budget_exhausted");
    expect(checkLimits({ run: run({ costUsd: 2 }), options: { ...options, costBudgetUsd: 1 }, now: 10 })?.reason).toBe(
      "budget_exhausted",
    );
    expect(checkLimits({ run: run({ failsInRow: 3 }), options, now: 10 })?.reason).toBe("too_many_fails");
    expect(checkLimits({ run: run({ recentSteps: ["a", "a", "a"] }), options, now: 10 })?.reason).toBe("loop_detected");
    expect(checkLimits({ run: run({ recentSteps: ["a", "b", "a", "b"] }), options, now: 10 })?.reason).toBe(
      "loop_detected",
    );
    expect(checkLimits({ run: run({ recentSteps: ["a", "b", "a", "c"] }), options, now: 10 })).toBeNull();
  });

  it("derives a recursion limit above the guard's step limit", () => {
    expect(recursionLimitFor({ maxSteps: 8 })).toBe(70);
    expect(recursionLimitFor({ maxSteps: 1 })).toBeGreaterThan(6 * 2);
  });
});

describe("cycleLength", () => {
  it("finds cycles of two to four steps gone round twice, and nothing else", () => {
    expect(cycleLength(["a", "b", "a", "b"])).toBe(2);
    expect(cycleLength(["x", "a", "b", "c", "a", "b", "c"])).toBe(3);
    expect(cycleLength(["a", "b", "c", "d", "a", "b", "c", "d"])).toBe(4);
    expect(cycleLength(["a", "a", "a", "a"])).toBeUndefined();
    expect(cycleLength(["a", "b", "c", "a", "b", "d"])).toBeUndefined();
    expect(cycleLength(["a", "b", "a"])).toBeUndefined();
  });
});

describe("failedStepsAfter", () => {
  it("adds a step only when every counted call failed, and resets on any success", () => {
    expect(
      failedStepsAfter(1, [
        { ok: false, errorCode: "internal" },
        { ok: false, errorCode: "invalid_args" },
      ]),
    ).toBe(2);
    expect(failedStepsAfter(2, [{ ok: true }, { ok: false, errorCode: "unknown_tool" }])).toBe(0);
    expect(
      failedStepsAfter(2, [
        { ok: false, errorCode: "rejected_by_user" },
        { ok: false, errorCode: "skipped" },
      ]),
    ).toBe(2);
    expect(
      failedStepsAfter(0, [
        { ok: false, errorCode: "cancelled" },
        { ok: false, errorCode: "timeout" },
      ]),
    ).toBe(1);
  });
});

const planned = (status: PlannedCall["status"]): PlannedCall => {
  const base = { callId: "c", tool: "t", args: {}, argsHash: "h", readOnly: true, risk: "low" } as const;
  if (status === "needs_params") return { ...base, status, missing: [] };
  if (status === "failed") return { ...base, status, failure: { errorCode: "internal", message: "" } };
  return { ...base, status };
};
const state = (partial: Partial<AgentStateType>) =>
  ({ messages: [], run: null, batch: null, stop: null, ...partial }) as AgentStateType;

describe("routing", () => {
  it("routes after each node as the graph of design §1", () => {
    expect(routeAfterModel(state({}))).toBe("guard_calls");
    expect(routeAfterModel(state({ stop: { reason: "final_answer", detail: "" } }))).toBe(END);
    expect(routeAfterModel(state({ stop: { reason: "cancelled", detail: "" } }))).toBe("finish_run");
    expect(routeAfterGuard(state({ stop: { reason: "max_steps", detail: "" } }))).toBe("finish_run");
    expect(routeAfterGuard(state({}))).toBe("validate_calls");
    expect(routeAfterValidate(state({ batch: { step: 1, calls: [planned("needs_approval")] } }))).toBe("review_calls");
    expect(
      routeAfterValidate(state({ batch: { step: 1, calls: [planned("needs_approval"), planned("ready")] } })),
    ).toBe("execute_tools");
    expect(routeAfterExecute(state({ batch: { step: 1, calls: [planned("done"), planned("needs_params")] } }))).toBe(
      "review_calls",
    );
    expect(routeAfterExecute(state({ batch: { step: 1, calls: [planned("done")] } }))).toBe("call_model");
    expect(
      routeAfterExecute(
        state({ stop: { reason: "cancelled", detail: "" }, batch: { step: 1, calls: [planned("needs_params")] } }),
      ),
    ).toBe("finish_run");
  });
});
