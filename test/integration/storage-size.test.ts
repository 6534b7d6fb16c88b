import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import BetterSqlite3 from "better-sqlite3";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";

const user = { id: "local", role: "operator" };
const SEEDS = [
  ["zh", "看看支付服务最近报错，顺便对照一下文档里的处理建议"],
  ["en", "Check the payment service's recent errors and compare them with the handling advice in the runbooks"],
] as const;

/** A finished seed thread may hold at most this many bytes of values in the database, with latest-only checkpoints. */
const SEED_THREAD_BYTES = 30_000;

/** The same thread with its whole history kept, as LangGraph keeps it (the default). */
const SEED_HISTORY_BYTES = 200_000;

/** Each table a thread's rows live in, and how its rows of one thread are found. */
const THREAD_ROWS: ReadonlyArray<[string, string]> = [
  ["checkpoints", "thread_id = ?"],
  ["writes", "thread_id = ?"],
  ["opspilot_threads", "thread_id = ?"],
  ["opspilot_results", "thread_id = ?"],
  ["opspilot_events", "thread_id = ?"],
  ["opspilot_journal", "thread_id = ?"],
  ["opspilot_runs", "thread_id = ?"],
  ["opspilot_steps", "run_id IN (SELECT run_id FROM opspilot_runs WHERE thread_id = ?)"],
  ["opspilot_tool_calls", "thread_id = ?"],
  ["opspilot_decisions", "thread_id = ?"],
  ["opspilot_run_limits", "thread_id = ?"],
];

const directory = mkdtempSync(join(tmpdir(), "opspilot-storage-size-"));
const dbPath = join(directory, "opspilot.sqlite");
const historyPath = join(directory, "history.sqlite");
let app: App;
let historyApp: App;
let db: BetterSqlite3.Database;

beforeAll(() => {
  app = createApp({ env: loadEnv({ OPSPILOT_CHECKPOINTS: "latest" }), dbPath, model: new DemoChatModel() });
  historyApp = createApp({ env: loadEnv({}), dbPath: historyPath, model: new DemoChatModel() });
  db = new BetterSqlite3(dbPath, { readonly: true });
});
afterAll(async () => {
  db.close();
  await app.close();
  await historyApp.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Rows and value bytes (the sum of every column's length) a thread holds, by table. */
function threadFootprint(threadId: string, from: BetterSqlite3.Database = db) {
  const footprint: Record<string, { rows: number; bytes: number }> = {};
  for (const [table, where] of THREAD_ROWS) {
    const columns = (from.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>)
      .map((column) => `COALESCE(length(${column.name}), 0)`)
      .join(" + ");
    footprint[table] = from
      .prepare(`SELECT COUNT(*) AS rows, COALESCE(SUM(${columns}), 0) AS bytes FROM ${table} WHERE ${where}`)
      .get(threadId) as { rows: number; bytes: number };
  }
  return footprint;
}

const totalBytes = (footprint: ReturnType<typeof threadFootprint>) =>
  Object.values(footprint).reduce((sum, table) => sum + table.bytes, 0);

/** Runs a seed question to its pause (where `atPause` looks), answers it with prod, and returns every event streamed. */
async function answerSeed(on: App, threadId: string, question: string, atPause = () => {}): Promise<RunEvent[]> {
  const first = await collectEvents(await on.runtime.startRun({ threadId, message: question, user }));
  expect(first.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
  atPause();
  const pause = first.find((event) => event.type === "loop_interrupt");
  if (pause?.type !== "loop_interrupt") throw new Error("the seed question did not pause");
  const decisions = pause.calls.map((call) => ({
    callId: call.callId,
    action: "approve" as const,
    argsHash: call.argsHash,
    params: { environment: "prod" },
  }));
  const second = await collectEvents(await on.runtime.resumeRun({ threadId, user, resume: { decisions } }));
  expect(second.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer", steps: 3 });
  return [...first, ...second];
}

describe.each(SEEDS)("a finished seed-question thread in %s, with its history", (_language, question) => {
  it(`keeps every checkpoint, readable by LangGraph's history, in under ${SEED_HISTORY_BYTES} bytes`, async () => {
    const threadId = await historyApp.runtime.createThread(user);
    await answerSeed(historyApp, threadId, question);
    const reader = new BetterSqlite3(historyPath, { readonly: true });
    const footprint = threadFootprint(threadId, reader);
    reader.close();
    const history = [];
    for await (const snapshot of historyApp.graph.getStateHistory({ configurable: { thread_id: threadId } }))
      history.push(snapshot);
    expect(footprint.checkpoints!.rows).toBe(history.length);
    // Two runs: the first to its pause after validate_calls, the second from review_calls through three more nodes a step.
    expect(history.length).toBe(12);
    expect(totalBytes(footprint)).toBeLessThan(SEED_HISTORY_BYTES);
  });
});

describe.each(SEEDS)("a finished seed-question thread in %s, latest checkpoint only", (_language, question) => {
  let threadId: string;
  let streamed: RunEvent[];

  it("keeps only its latest checkpoint, with its pause, while it waits", async () => {
    threadId = await app.runtime.createThread(user);
    streamed = await answerSeed(app, threadId, question, () => {
      const waiting = threadFootprint(threadId);
      expect(waiting.checkpoints!.rows).toBe(1);
      expect(waiting.writes!.rows).toBeGreaterThan(0);
    });
  });

  it(`holds one checkpoint, no pending writes and under ${SEED_THREAD_BYTES} bytes once answered`, () => {
    const footprint = threadFootprint(threadId);
    expect(footprint.checkpoints!.rows).toBe(1);
    expect(footprint.writes!.rows).toBe(0);
    expect(footprint.opspilot_events!.rows).toBe(streamed.length);
    expect(totalBytes(footprint)).toBeLessThan(SEED_THREAD_BYTES);
  });

  it("reads back every event, result, record and message as they were", async () => {
    expect(await app.runtime.eventsAfter(threadId, user, 0)).toEqual(streamed);
    const calls = streamed.filter((event) => event.type === "tool_result");
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      const result = await app.runtime.getResult(threadId, user, call.callId);
      expect(result).toMatchObject({ callId: call.callId, tool: call.tool });
      expect(JSON.stringify(result!.result).length).toBeGreaterThan(50);
    }
    const records = await app.storage.threadRecords(threadId);
    expect(records.runs).toMatchObject([{ stop_reason: "final_answer", steps: 3, pauses: 1 }]);
    expect(records.toolCalls).toHaveLength(3);
    expect(records.decisions).toHaveLength(1);
    const view = await app.runtime.getThread(threadId, user);
    expect(view.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
  });
});
