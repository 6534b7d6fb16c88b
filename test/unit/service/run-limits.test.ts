import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage } from "@langchain/core/messages";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, type App } from "../../../src/app/assemble.js";
import { serverRunLimits } from "../../../src/app/run-limits.js";
import { loadEnv } from "../../../src/config/env.js";
import type { RunLimits } from "../../../src/contracts/limits.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import { ConfigError, LimitAboveCeilingError, QuotaExceededError } from "../../../src/contracts/errors.js";
import type { RunOptionsRequest } from "../../../src/graph/limits.js";
import { answerMessage, ScriptedChatModel, type ScriptStep } from "../../fixtures/scripted-model.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import { nextUtcMidnight, utcDay } from "../../../src/storage/records/usage-day.js";
import { testTools } from "../../fixtures/test-tools.js";
import { defineTool, type ToolDefinition } from "../../../src/tools/types.js";

const user = { id: "tester", role: "operator" };

/** A model turn calling `tool` that reports 1000 input and 200 output tokens. */
function turn(tool: string, args: Record<string, unknown>): AIMessage {
  return new AIMessage({
    content: "",
    tool_calls: [{ name: tool, args, type: "tool_call" }],
    usage_metadata: { input_tokens: 1_000, output_tokens: 200, total_tokens: 1_200 },
  });
}

/** A different read each step, so only the limit under test can stop the run. */
const reads = (count: number) => Array.from({ length: count }, (_, index) => turn("read_a", { query: `q${index}` }));

describe("run limits, budgets, cost and quotas through the app", () => {
  const opened: Array<{ app: App; directory: string }> = [];
  afterEach(async () => {
    for (const { app, directory } of opened.splice(0)) {
      await app.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  function open(options: {
    env?: Record<string, string>;
    script: ScriptStep[];
    profiles?: Record<string, RunLimits>;
    modelDelayMs?: number;
    tools?: ToolDefinition[];
  }) {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-limits-"));
    const app = createApp({
      env: loadEnv(options.env ?? {}),
      dbPath: join(directory, "opspilot.sqlite"),
      model: new ScriptedChatModel({ script: options.script, delayMs: options.modelDelayMs, onExhausted: "answer" }),
      tools: () => options.tools ?? testTools(),
      config: { mcpServers: {}, tools: {}, demo: true, profiles: options.profiles ?? {} },
    });
    opened.push({ app, directory });
    const ask = async (message: string, runOptions?: RunOptionsRequest): Promise<RunEvent[]> => {
      const threadId = await app.runtime.createThread(user);
      return collectEvents(await app.runtime.startRun({ threadId, message, user, options: runOptions }));
    };
    return { app, ask };
  }

  const finished = (events: RunEvent[]) => events.at(-1) as Extract<RunEvent, { type: "run_finished" }>;

  it("stops at OPSPILOT_MAX_STEPS", async () => {
    const { ask } = open({ env: { OPSPILOT_MAX_STEPS: "2" }, script: reads(5) });
    expect(finished(await ask("go"))).toMatchObject({ stopReason: "max_steps", steps: 3 });
  });

  it("stops at OPSPILOT_MAX_TOOL_FAILS", async () => {
    const failing = [turn("missing", { id: "1" }), turn("missing", { id: "2" }), turn("missing", { id: "3" })];
    const { ask } = open({ env: { OPSPILOT_MAX_TOOL_FAILS: "1" }, script: failing });
    expect(finished(await ask("find"))).toMatchObject({ stopReason: "too_many_fails", steps: 2 });
  });

  it("stops at OPSPILOT_IDENTICAL_CALL_LIMIT", async () => {
    const same = Array.from({ length: 4 }, () => turn("read_a", { query: "same" }));
    const { ask } = open({ env: { OPSPILOT_IDENTICAL_CALL_LIMIT: "2" }, script: same });
    expect(finished(await ask("repeat"))).toMatchObject({ stopReason: "loop_detected", steps: 2 });
  });

  it("stops at OPSPILOT_TOKEN_BUDGET", async () => {
    const { ask } = open({ env: { OPSPILOT_TOKEN_BUDGET: "2000" }, script: reads(5) });
    expect(finished(await ask("spend"))).toMatchObject({ stopReason: "budget_exhausted", steps: 2, tokens: 2_400 });
  });

  it("stops at OPSPILOT_COST_BUDGET_USD with prices set", async () => {
    const env = {
      OPSPILOT_COST_BUDGET_USD: "0.003",
      OPSPILOT_PRICE_INPUT_PER_MTOK: "1",
      OPSPILOT_PRICE_OUTPUT_PER_MTOK: "5",
    };
    const { ask } = open({ env, script: reads(5) });
    const end = finished(await ask("spend"));
    expect(end).toMatchObject({ stopReason: "budget_exhausted", steps: 2, tokens: 2_400 });
    expect(end.costUsd).toBeCloseTo(0.004, 12);
  });

  it("stops at OPSPILOT_MAX_WALL_TIME_MS", async () => {
    const { ask } = open({ env: { OPSPILOT_MAX_WALL_TIME_MS: "450" }, script: reads(5), modelDelayMs: 300 });
    expect(finished(await ask("slow"))).toMatchObject({ stopReason: "timeout", steps: 2 });
  });

  it("stops at a profile's limits, and a run's own limit wins over its profile's", async () => {
    const { ask } = open({
      env: { OPSPILOT_MAX_STEPS: "5" },
      profiles: { quick: { maxSteps: 1 }, investigate: { maxSteps: 4 } },
      script: reads(20),
    });
    expect(finished(await ask("q", { profile: "quick" }))).toMatchObject({ stopReason: "max_steps", steps: 2 });
    expect(finished(await ask("q", { profile: "investigate", maxSteps: 2 }))).toMatchObject({
      stopReason: "max_steps",
      steps: 3,
    });
  });

  it("stops at a run's own token budget below the ceiling", async () => {
    const { ask } = open({ env: { OPSPILOT_TOKEN_BUDGET: "100000" }, script: reads(10) });
    expect(finished(await ask("q", { tokenBudget: 1_000 }))).toMatchObject({
      stopReason: "budget_exhausted",
      steps: 1,
      tokens: 1_200,
    });
  });

  it("keeps a run's own limits when it is resumed after a pause", async () => {
    const { app } = open({ script: [turn("write_high", { target: "a", environment: "prod" }), ...reads(10)] });
    const threadId = await app.runtime.createThread(user);
    const first = await collectEvents(
      await app.runtime.startRun({ threadId, message: "restart a", user, options: { maxSteps: 2 } }),
    );
    expect(finished(first)).toMatchObject({ stopReason: "interrupted", steps: 1 });
    const pause = first.find((event) => event.type === "loop_interrupt")!;
    const callId = (pause as unknown as { calls: Array<{ callId: string }> }).calls[0]!.callId;
    const resumed = await collectEvents(
      await app.runtime.resumeRun({ threadId, user, resume: { decisions: [{ callId, action: "approve" }] } }),
    );
    expect(finished(resumed)).toMatchObject({ stopReason: "max_steps", steps: 3 });
  });

  it("refuses a run limit above its ceiling, naming it, and leaves the thread free", async () => {
    const { app } = open({ env: { OPSPILOT_MAX_STEPS: "3" }, script: [answerMessage("fine")] });
    const threadId = await app.runtime.createThread(user);
    const refused = app.runtime.startRun({ threadId, message: "q", user, options: { maxSteps: 4 } });
    await expect(refused).rejects.toThrow(LimitAboveCeilingError);
    await expect(refused).rejects.toMatchObject({
      code: "limit_above_ceiling",
      status: 400,
      message: "maxSteps 4 is above the server's ceiling of 3 (OPSPILOT_MAX_STEPS); a run may only tighten it.",
    });
    const events = await collectEvents(
      await app.runtime.startRun({ threadId, message: "q", user, options: { maxSteps: 3 } }),
    );
    expect(finished(events)).toMatchObject({ stopReason: "final_answer", steps: 1 });
  });

  it("refuses an unknown profile", async () => {
    const { ask } = open({ profiles: { quick: { maxSteps: 1 } }, script: [] });
    await expect(ask("q", { profile: "slow" })).rejects.toMatchObject({
      code: "unknown_profile",
      status: 400,
      message: 'Profile "slow" is not defined; the config file defines quick.',
    });
  });

  it("stops start-up when a profile is looser than a ceiling", () => {
    const env = loadEnv({ OPSPILOT_TOKEN_BUDGET: "5000" });
    expect(() => serverRunLimits(env, { profiles: { investigate: { tokenBudget: 9000 } } })).toThrow(
      new ConfigError(
        "profiles.investigate.tokenBudget: tokenBudget 9000 is above the server's ceiling of 5000 (OPSPILOT_TOKEN_BUDGET); a run may only tighten it.",
      ),
    );
  });

  it("records each step's and the run's cost and tokens, and the user's usage of the day", async () => {
    const env = { OPSPILOT_PRICE_INPUT_PER_MTOK: "1", OPSPILOT_PRICE_OUTPUT_PER_MTOK: "5" };
    const { app, ask } = open({ env, script: [turn("read_a", { query: "x" }), answerMessage("done")] });
    const events = await ask("q");
    const end = finished(events);
    // The final answer's tokens come from the scripted model's estimate; the first step's are fixed.
    const records = await app.storage.threadRecords(end.threadId);
    const [first, second] = records.steps;
    expect(first).toMatchObject({ step: 1, input_tokens: 1_000, output_tokens: 200 });
    expect(first!.cost_usd).toBeCloseTo(0.002, 12);
    const secondCost = (Number(second!.input_tokens) * 1 + Number(second!.output_tokens) * 5) / 1_000_000;
    expect(second!.cost_usd).toBeCloseTo(secondCost, 12);
    expect(end.costUsd).toBeCloseTo(0.002 + secondCost, 12);
    expect(end.tokens).toBe(1_200 + Number(second!.input_tokens) + Number(second!.output_tokens));
    expect(records.runs).toHaveLength(1);
    expect(records.runs[0]).toMatchObject({ tokens: end.tokens, stop_reason: "final_answer" });
    expect(records.runs[0]!.cost_usd).toBeCloseTo(end.costUsd!, 12);
    const usage = await app.storage.usageOn(user.id, utcDay(Date.now()));
    expect(usage).toMatchObject({ runs: 1, tokens: end.tokens });
    expect(usage.costUsd).toBeCloseTo(end.costUsd!, 12);
  });

  it("sums the cost units of the tool calls that reached a tool, and records them with the run", async () => {
    const paid = defineTool({
      name: "paid_lookup",
      description: "A lookup billed per call.",
      schema: z.object({ query: z.string().describe("What to look up") }),
      readOnly: true,
      risk: "low",
      timeoutMs: 1_000,
      costUnits: 2.5,
      run: async (args) => ({ query: args.query }),
    });
    const script = [
      turn("paid_lookup", { query: "a" }),
      new AIMessage({
        content: "",
        tool_calls: [
          { name: "paid_lookup", args: { query: "b" }, type: "tool_call" },
          { name: "paid_lookup", args: {}, type: "tool_call" },
        ],
      }),
      answerMessage("done"),
    ];
    const { app, ask } = open({ script, tools: [paid] });
    const end = finished(await ask("look up"));
    expect(end).toMatchObject({ stopReason: "final_answer", steps: 3 });
    const { runs, toolCalls } = await app.storage.threadRecords(end.threadId);
    expect(toolCalls.map((call) => [call.outcome, call.error_code])).toEqual([
      ["ok", null],
      ["ok", null],
      ["error", "invalid_args"],
    ]);
    // The call with bad arguments never reached the tool, so it cost nothing.
    expect(runs.map((run) => run.tool_cost_units)).toEqual([5]);
  });

  it("refuses the next run once the runs quota is spent, saying when it resets", async () => {
    const { app, ask } = open({ env: { OPSPILOT_QUOTA_RUNS_PER_DAY: "1" }, script: [answerMessage("one")] });
    await ask("first");
    const threadId = await app.runtime.createThread(user);
    const refused = app.runtime.startRun({ threadId, message: "second", user });
    const resetsAt = new Date(nextUtcMidnight(Date.now())).toISOString();
    await expect(refused).rejects.toThrow(QuotaExceededError);
    await expect(refused).rejects.toMatchObject({
      code: "quota_exceeded",
      status: 429,
      quota: "runs",
      resetsAt,
      message: `Daily quota reached: tester has used 1 of 1 runs today (UTC); it resets at ${resetsAt}.`,
    });
    // Another user has a quota of their own.
    const other = { id: "other", role: "operator" };
    const theirs = await app.runtime.createThread(other);
    expect(
      finished(await collectEvents(await app.runtime.startRun({ threadId: theirs, message: "hi", user: other }))),
    ).toMatchObject({
      stopReason: "final_answer",
    });
  });

  it("refuses a resume once the tokens quota is spent, and keeps the pause", async () => {
    const { app } = open({
      env: { OPSPILOT_QUOTA_TOKENS_PER_DAY: "1000" },
      script: [turn("write_high", { target: "a", environment: "prod" }), answerMessage("done")],
    });
    const threadId = await app.runtime.createThread(user);
    const first = await collectEvents(await app.runtime.startRun({ threadId, message: "restart a", user }));
    expect(finished(first)).toMatchObject({ stopReason: "interrupted", tokens: 1_200 });
    const pause = first.find((event) => event.type === "loop_interrupt")!;
    const callId = (pause as unknown as { calls: Array<{ callId: string }> }).calls[0]!.callId;
    await expect(
      app.runtime.resumeRun({ threadId, user, resume: { decisions: [{ callId, action: "approve" }] } }),
    ).rejects.toMatchObject({ code: "quota_exceeded", quota: "tokens" });
    expect((await app.runtime.getThread(threadId, user)).status).toBe("interrupted");
  });
});
