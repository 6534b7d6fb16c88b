import { AIMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import { ScriptedChatModel } from "../fixtures/scripted-model.js";
import { nextUtcMidnight } from "../../src/storage/records/usage-day.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

/** A model that reads something new every turn and reports 1000 input and 200 output tokens each time. */
function endlessReader(): ScriptedChatModel {
  return new ScriptedChatModel({
    script: Array.from(
      { length: 60 },
      (_, index) =>
        new AIMessage({
          content: "",
          tool_calls: [{ name: "read_a", args: { query: `q${index}` }, type: "tool_call" }],
          usage_metadata: { input_tokens: 1_000, output_tokens: 200, total_tokens: 1_200 },
        }),
    ),
  });
}

const finished = (events: RunEvent[]) => events.at(-1) as Extract<RunEvent, { type: "run_finished" }>;

describe("run limits, cost and quotas over HTTP", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(env: Record<string, string>) {
    server = await startTestServer({
      model: endlessReader(),
      tools: () => testTools(),
      config: { mcpServers: {}, tools: {}, demo: true, profiles: { quick: { maxSteps: 1 } } },
      rateLimitPerMinute: 0,
      env,
    });
    return server;
  }

  const run = async (body: unknown) => {
    const threadId = await server!.client.createThread();
    return server!.client.streamed(`/api/threads/${threadId}/runs`, body);
  };

  it("stops at the server's ceiling, a run option and a profile, with the run's tokens and cost", async () => {
    await start({ OPSPILOT_MAX_STEPS: "3", OPSPILOT_PRICE_INPUT_PER_MTOK: "2", OPSPILOT_PRICE_OUTPUT_PER_MTOK: "8" });
    const byDefault = finished(await run({ message: "look around" }));
    expect(byDefault).toMatchObject({ stopReason: "max_steps", steps: 4, tokens: 4_800 });
    expect(byDefault.costUsd).toBeCloseTo(0.0144, 12);
    const byOption = finished(await run({ message: "look around", options: { maxSteps: 2 } }));
    expect(byOption).toMatchObject({ stopReason: "max_steps", steps: 3, tokens: 3_600 });
    expect(byOption.costUsd).toBeCloseTo(0.0108, 12);
    const byProfile = finished(await run({ message: "look around", options: { profile: "quick" } }));
    expect(byProfile).toMatchObject({ stopReason: "max_steps", steps: 2, tokens: 2_400 });
    const byBudget = finished(await run({ message: "look around", options: { tokenBudget: 1_000 } }));
    expect(byBudget).toMatchObject({ stopReason: "budget_exhausted", steps: 1, tokens: 1_200 });
  });

  it("answers 400 naming the ceiling for an option above it, and 400 for an option a run may not set", async () => {
    await start({ OPSPILOT_MAX_STEPS: "3", OPSPILOT_COST_BUDGET_USD: "0.5" });
    const threadId = await server!.client.createThread();
    const above = await server!.client.request("POST", `/api/threads/${threadId}/runs`, {
      message: "hi",
      options: { profile: "quick", costBudgetUsd: 2 },
    });
    expect(above.status).toBe(400);
    expect(await above.json()).toEqual({
      error: {
        code: "limit_above_ceiling",
        message:
          "costBudgetUsd 2 is above the server's ceiling of 0.5 (OPSPILOT_COST_BUDGET_USD); a run may only tighten it.",
      },
    });
    const price = await server!.client.request("POST", `/api/threads/${threadId}/runs`, {
      message: "hi",
      options: { inputPricePerMillion: 0 },
    });
    expect(price.status).toBe(400);
    expect(((await price.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    const unknown = await server!.client.request("POST", `/api/threads/${threadId}/runs`, {
      message: "hi",
      options: { profile: "slow" },
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      error: { code: "unknown_profile", message: 'Profile "slow" is not defined; the config file defines quick.' },
    });
    // Nothing ran on the thread: it takes a run as if the refusals never happened.
    expect(
      finished(
        await server!.client.streamed(`/api/threads/${threadId}/runs`, { message: "hi", options: { maxSteps: 1 } }),
      ),
    ).toMatchObject({ stopReason: "max_steps", steps: 2 });
  });

  it("answers 429 quota_exceeded with Retry-After once the day's runs are spent", async () => {
    await start({ OPSPILOT_QUOTA_RUNS_PER_DAY: "1" });
    await run({ message: "first", options: { maxSteps: 1 } });
    const threadId = await server!.client.createThread();
    const before = Date.now();
    const refused = await server!.client.request("POST", `/api/threads/${threadId}/runs`, { message: "second" });
    const resetsAt = nextUtcMidnight(before);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: Record<string, unknown> };
    expect(body).toEqual({
      error: {
        code: "quota_exceeded",
        quota: "runs",
        resetsAt: new Date(resetsAt).toISOString(),
        message: `Daily quota reached: local has used 1 of 1 runs today (UTC); it resets at ${new Date(resetsAt).toISOString()}.`,
      },
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((resetsAt - before) / 1000));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((resetsAt - Date.now()) / 1000));
  });
});
