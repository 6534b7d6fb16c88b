import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import { postgresBudgets, RATE_LIMIT_TABLE } from "../../src/execution/rate-limit-store.js";
import { ToolRateLimits } from "../../src/execution/tool-rate-limits.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { refusedCallsCostNothing } from "../fixtures/rate-limit-scenario.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptStep } from "../fixtures/scripted-model.js";
import { testTools } from "../fixtures/test-tools.js";

/** `read_a` shares 3 calls a minute among everyone; `read_b` allows each user 2. */
const CONFIG = parseConfig(
  { tools: { read_a: { rateLimit: { perMinute: 3 } }, read_b: { rateLimit: { perUserPerMinute: 2 } } } },
  {},
);

/** Each run: the model calls the tool the message names once, then answers. */
const oneCallPerRun: ScriptStep = ({ messages }) => {
  const last = messages.at(-1)!;
  if (last.getType() === "tool") return answerMessage("Done.");
  return callsMessage([{ name: String(last.content), args: { query: "errors" } }]);
};

/** The observation of the run's one tool call, parsed from its ToolMessage. */
function observationIn(messages: BaseMessage[]): {
  ok: boolean;
  errorCode?: string;
  message?: string;
  retryAfterMs?: number;
} {
  const tool = messages.filter((message) => message.getType() === "tool");
  expect(tool).toHaveLength(1);
  return JSON.parse(String(tool[0]!.content)) as { ok: boolean };
}

describe.skipIf(skipPostgres)("rateLimit budgets shared by processes on one PostgreSQL database", () => {
  let cluster: PostgresCluster;
  let directory: string;
  let a: App;
  let b: App;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    directory = mkdtempSync(join(tmpdir(), "opspilot-rate-limits-"));
    const url = await cluster.createDatabase("opspilot_rate_limits");
    const instance = (name: string) =>
      openApp({
        env: loadEnv({
          DATABASE_URL: url,
          OPSPILOT_DB: join(directory, `${name}.sqlite`),
          OPSPILOT_LOG_LEVEL: "silent",
        }),
        config: CONFIG,
        model: new ScriptedChatModel({ script: Array.from({ length: 40 }, () => oneCallPerRun) }),
        tools: () => testTools(),
      });
    // Started together: the budgets' table is created once, under the set-up lock.
    [a, b] = await Promise.all([instance("a"), instance("b")]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Runs one turn on `app` as `userId` that calls `tool` once; returns that call's observation. */
  const call = async (app: App, tool: string, userId: string) => {
    const user = { id: userId, role: "operator" };
    const threadId = await app.runtime.createThread(user);
    const events = await collectEvents(await app.runtime.startRun({ threadId, message: tool, user }));
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    const state = await app.graph.getState({ configurable: { thread_id: threadId } });
    return observationIn((state.values as { messages: BaseMessage[] }).messages);
  };

  it("lets 3 calls a minute through across both processes and refuses the 4th on either, saying how long to wait", async () => {
    const first = [await call(a, "read_a", "ada"), await call(b, "read_a", "bo"), await call(a, "read_a", "cy")];
    expect(first.map((observation) => observation.ok)).toEqual([true, true, true]);
    for (const app of [b, a]) {
      const refused = await call(app, "read_a", "dee");
      expect(refused).toMatchObject({
        ok: false,
        errorCode: "rate_limited",
        message: expect.stringMatching(/^read_a is limited to 3 calls per minute; it was not called\. Wait \d+ s/),
      });
      expect(refused.retryAfterMs).toBeGreaterThan(50_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
  }, 60_000);

  it("holds each user's budget across both processes and leaves other users' alone", async () => {
    expect((await call(a, "read_b", "ada")).ok).toBe(true);
    expect((await call(b, "read_b", "ada")).ok).toBe(true);
    expect(await call(a, "read_b", "ada")).toMatchObject({
      ok: false,
      errorCode: "rate_limited",
      message: expect.stringMatching(/^read_b is limited to 2 calls per minute per user; it was not called\./),
    });
    expect(await call(b, "read_b", "ada")).toMatchObject({ ok: false, errorCode: "rate_limited" });
    expect((await call(b, "read_b", "bo")).ok).toBe(true);
  }, 60_000);

  it("keeps the same give-back as the memory store: refused calls cost their user nothing", async () => {
    const url = await cluster.createDatabase("opspilot_rate_limit_give_back");
    const pools = [new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url })];
    try {
      const [first, second] = await Promise.all(
        pools.map(async (pool) => new ToolRateLimits({ store: await postgresBudgets(pool) })),
      );
      expect(await refusedCallsCostNothing(first!, second!)).toEqual(["ok", "rate_limited", "rate_limited", "ok"]);
      const rows = await pools[0]!.query<{ key: string; points: number }>(
        `SELECT key, points FROM ${RATE_LIMIT_TABLE} WHERE key LIKE 'read_a|user|%' ORDER BY key`,
      );
      expect(rows.rows).toEqual([
        { key: "read_a|user|1|bob", points: 1 },
        { key: "read_a|user|1|carol", points: 1 },
      ]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }, 60_000);
});
