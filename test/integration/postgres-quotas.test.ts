import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage } from "@langchain/core/messages";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { answerMessage, ScriptedChatModel, type ScriptStep } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { startServer } from "../../src/server/start.js";
import { utcDay } from "../../src/storage/records/usage-day.js";
import { ApiClient } from "../fixtures/http.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { testTools } from "../fixtures/test-tools.js";

const user = { id: "local", role: "operator" };

/** A read reporting 1000 input and 200 output tokens. */
const read = new AIMessage({
  content: "",
  tool_calls: [{ name: "read_a", args: { query: "x" }, type: "tool_call" }],
  usage_metadata: { input_tokens: 1_000, output_tokens: 200, total_tokens: 1_200 },
});

describe.skipIf(skipPostgres)("quotas and run limits shared by processes on one PostgreSQL database", () => {
  let cluster: PostgresCluster;
  let directory: string;
  let opened: App[] = [];
  let instances = 0;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    directory = mkdtempSync(join(tmpdir(), "opspilot-quotas-"));
  });

  afterEach(async () => {
    await Promise.all(opened.map((app) => app.close()));
    opened = [];
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** One process: its own pool, model and demo file, on the shared database. */
  async function instance(url: string, env: Record<string, string>, script: ScriptStep[]): Promise<App> {
    const app = await openApp({
      env: loadEnv({ ...env, DATABASE_URL: url, OPSPILOT_DB: join(directory, `instance-${++instances}.sqlite`) }),
      model: new ScriptedChatModel({ script, onExhausted: "answer" }),
      tools: () => testTools(),
    });
    opened.push(app);
    return app;
  }

  const ask = async (app: App, message: string) => {
    const threadId = await app.runtime.createThread(user);
    return collectEvents(await app.runtime.startRun({ threadId, message, user }));
  };

  it("answers 429 on B once A spent the day's tokens", async () => {
    const url = await cluster.createDatabase("opspilot_quota_tokens");
    const quota = { OPSPILOT_QUOTA_TOKENS_PER_DAY: "1000", OPSPILOT_PRICE_INPUT_PER_MTOK: "3" };
    const a = await instance(url, quota, [read, answerMessage("done")]);
    const b = await instance(url, quota, []);
    const events = await ask(a, "spend");
    const end = events.at(-1) as { tokens: number; costUsd: number };
    expect(end.tokens).toBeGreaterThan(1_200);
    const usage = await b.storage.usageOn(user.id, utcDay(Date.now()));
    expect(usage).toMatchObject({ runs: 1, tokens: end.tokens });
    expect(usage.costUsd).toBeCloseTo(end.costUsd, 12);
    const records = await b.storage.threadRecords(events[0]!.threadId);
    expect(records.runs.map((run) => run.tokens)).toEqual([end.tokens]);
    expect(records.runs[0]!.cost_usd).toBeCloseTo(end.costUsd, 12);
    expect(records.steps[0]).toMatchObject({ step: 1, input_tokens: 1_000, output_tokens: 200, cost_usd: 0.003 });

    const server = await startServer({
      runtime: b.runtime,
      host: "127.0.0.1",
      port: 0,
      logger: { error: () => undefined },
      rateLimitPerMinute: 0,
    });
    try {
      const client = new ApiClient(server.url);
      const threadId = await client.createThread();
      const refused = await client.request("POST", `/api/threads/${threadId}/runs`, { message: "more" });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await refused.json()) as { error: { code: string; quota: string } }).error).toMatchObject({
        code: "quota_exceeded",
        quota: "tokens",
      });
    } finally {
      await server.close();
    }
  }, 60_000);

  it("keeps a run's own limits when B resumes the pause A's run stopped at", async () => {
    const url = await cluster.createDatabase("opspilot_run_limits");
    const write = new AIMessage({
      content: "",
      tool_calls: [{ name: "write_high", args: { target: "a", environment: "prod" }, type: "tool_call" }],
    });
    const reads = Array.from(
      { length: 10 },
      (_, index) =>
        new AIMessage({
          content: "",
          tool_calls: [{ name: "read_a", args: { query: `q${index}` }, type: "tool_call" }],
        }),
    );
    const a = await instance(url, {}, [write]);
    const b = await instance(url, {}, reads);
    const threadId = await a.runtime.createThread(user);
    const paused = await collectEvents(
      await a.runtime.startRun({ threadId, message: "restart a", user, options: { maxSteps: 2 } }),
    );
    const pause = paused.find((event) => event.type === "loop_interrupt") as unknown as {
      calls: Array<{ callId: string }>;
    };
    const resumed = await collectEvents(
      await b.runtime.resumeRun({
        threadId,
        user,
        resume: { decisions: [{ callId: pause.calls[0]!.callId, action: "approve" }] },
      }),
    );
    expect(resumed.at(-1)).toMatchObject({ type: "run_finished", stopReason: "max_steps", steps: 3 });
  }, 60_000);

  it("counts the runs of both processes against one runs quota", async () => {
    const url = await cluster.createDatabase("opspilot_quota_runs");
    const quota = { OPSPILOT_QUOTA_RUNS_PER_DAY: "2" };
    const a = await instance(url, quota, [answerMessage("one")]);
    const b = await instance(url, quota, [answerMessage("two")]);
    await ask(a, "first");
    await ask(b, "second");
    await expect(ask(a, "third")).rejects.toMatchObject({ code: "quota_exceeded", quota: "runs", status: 429 });
    await expect(ask(b, "third")).rejects.toMatchObject({ code: "quota_exceeded", quota: "runs", status: 429 });
  }, 60_000);
});
