import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, type PostgresBackend } from "../../src/storage/postgres/open-postgres.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import type { RecordsSummary, Storage } from "../../src/storage/types.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { checkPrune } from "../fixtures/prune-scenario.js";
import { HumanMessage } from "@langchain/core/messages";
import { answerMessage, callsMessage } from "../fixtures/scripted-model.js";
import { scriptedLoop } from "../fixtures/read-steps.js";
import type { AgentStateType } from "../../src/graph/state.js";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T00:00:00Z");

/** The same records on any storage: two days of runs, a failing tool, a finished pause and one still waiting. */
async function seed(storage: Storage) {
  const run = async (
    runId: string,
    startedAt: number,
    steps: number[],
    end?: { stopReason: "final_answer" | "error" | "interrupted"; resumed: boolean },
  ) => {
    await storage.createThread(`thread-${runId}`, "alice");
    await storage.recordRunStart({ runId, threadId: `thread-${runId}`, userId: "alice", startedAt });
    for (const [index, latencyMs] of steps.entries())
      await storage.recordStep({
        runId,
        step: index + 1,
        latencyMs,
        inputTokens: 100,
        outputTokens: 10,
        toolCalls: 1,
        costUsd: 0.5,
      });
    if (end)
      await storage.recordRunEnd({
        runId,
        stopReason: end.stopReason,
        steps: steps.length,
        durationMs: 50,
        resumed: end.resumed,
      });
  };
  const call = (runId: string, callId: string, tool: string, outcome: "ok" | "error", durationMs: number) =>
    storage.recordToolCalls([
      {
        runId,
        threadId: `thread-${runId}`,
        callId,
        tool,
        argsDigest: `digest-${callId}`,
        argsSummary: `call=${callId}`,
        outcome,
        ...(outcome === "error" ? { errorCode: "timeout" as const } : {}),
        durationMs,
      },
    ]);
  await run("r1", T0 + 1000, [100, 200], { stopReason: "final_answer", resumed: false });
  await call("r1", "c1", "search_logs", "error", 40);
  await call("r1", "c2", "search_logs", "ok", 20);
  // Paused, then resumed and finished: the first end records the pause.
  await run("r2", T0 + DAY + 1000, [300, 400, 500], { stopReason: "interrupted", resumed: false });
  await storage.recordRunEnd({ runId: "r2", stopReason: "final_answer", steps: 3, durationMs: 90, resumed: true });
  await call("r2", "c3", "get_metrics", "ok", 10);
  await run("r3", T0 + DAY + 2000, [600], { stopReason: "interrupted", resumed: false });
  await storage.appendEvent("thread-r3", "r3", {
    type: "loop_interrupt",
    interruptId: "i3",
    interruptType: "confirm_risky",
    reason: "approve the restart",
    calls: [{ callId: "c4", tool: "restart_service", args: {}, argsHash: "h4", risk: "high", missing: [] }],
  } as never);
  await run("r4", T0 + 3 * DAY, [700], { stopReason: "final_answer", resumed: false });
}

describe.skipIf(skipPostgres)("records on PostgreSQL", () => {
  let cluster: PostgresCluster;
  let postgres: PostgresBackend;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    postgres = await openPostgres(await cluster.createDatabase("opspilot_records_summary"));
  });

  afterAll(async () => {
    await postgres?.close();
    await cluster?.stop();
  });

  it("gives the same summary as SQLite, with the exact figures of the records", async () => {
    const sqlite = openSqlite(":memory:");
    await seed(sqlite.storage);
    await seed(postgres.storage);
    const window = { since: T0, until: T0 + 2 * DAY };
    // When a pause began is the clock's at recording, the one figure the two seeds do not share.
    const withoutClock = (summary: RecordsSummary) => ({
      ...summary,
      waitingPauses: summary.waitingPauses.map((pause) => ({ ...pause, since: "" })),
    });
    const expected = await sqlite.storage.summary(window);
    expect(withoutClock(await postgres.storage.summary(window))).toEqual(withoutClock(expected));
    expect(expected).toEqual({
      since: "2026-03-01T00:00:00.000Z",
      until: "2026-03-03T00:00:00.000Z",
      runs: 2,
      averageSteps: 2.5,
      toolCalls: 3,
      toolFailureRate: 1 / 3,
      stopReasons: { final_answer: 2 },
      resumedAndFinished: 1,
      pauses: {
        paused: 2,
        resumedAndFinished: 1,
        resumedAndStopped: 0,
        cancelled: 0,
        waiting: 1,
        resumeFinishRate: 0.5,
      },
      stepLatencyMs: { p50: 300, p95: 600, count: 6 },
      toolLatencyMs: { p50: 20, p95: 40, count: 3 },
      tokens: { input: 600, output: 60 },
      costUsd: 3,
      days: [
        {
          day: "2026-03-01",
          runs: 1,
          stopReasons: { final_answer: 1 },
          inputTokens: 200,
          outputTokens: 20,
          costUsd: 1,
        },
        {
          day: "2026-03-02",
          runs: 1,
          stopReasons: { final_answer: 1 },
          inputTokens: 400,
          outputTokens: 40,
          costUsd: 2,
        },
      ],
      topFailingTools: [{ tool: "search_logs", calls: 2, failures: 1, failureRate: 0.5, p95Ms: 40 }],
      waitingPauses: [
        { threadId: "thread-r3", runId: "r3", tool: "restart_service", since: expect.any(String) as string },
      ],
    });
    const pageOf = async (storage: Storage) => storage.recordsPage({ since: T0, limit: 2 });
    const [fromSqlite, fromPostgres] = [await pageOf(sqlite.storage), await pageOf(postgres.storage)];
    expect(fromPostgres.toolCalls).toEqual(fromSqlite.toolCalls);
    expect(fromPostgres.toolCalls.map((row) => [row.call_id, row.args_summary])).toEqual([
      ["c1", "call=c1"],
      ["c2", "call=c2"],
      ["c3", "call=c3"],
    ]);
    expect(fromPostgres.next).toEqual({ startedAt: T0 + DAY + 1000, runId: "r2" });
    sqlite.close();
  });

  it("prunes old threads, checkpoints and records, and leaves a waiting pause resumable", async () => {
    const backend = await openPostgres(await cluster.createDatabase("opspilot_prune"));
    try {
      const count = async (sql: string, params: unknown[] = []) =>
        Number((await backend.pool.query<{ n: string }>(sql, params)).rows[0]!.n);
      await checkPrune(backend, {
        checkpoints: (threadId) => count("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = $1", [threadId]),
        dangling: () =>
          count(`SELECT COUNT(*) AS n FROM checkpoint_blobs b WHERE NOT EXISTS (SELECT 1 FROM checkpoints c,
            jsonb_each_text(c.checkpoint -> 'channel_versions') v WHERE c.thread_id = b.thread_id
            AND c.checkpoint_ns = b.checkpoint_ns AND v.key = b.channel AND v.value = b.version)`),
      });
    } finally {
      await backend.close();
    }
  });

  it("compacts a latest-only thread to one checkpoint, and a thread with its history only down to what rebuilds it", async () => {
    const backend = await openPostgres(await cluster.createDatabase("opspilot_compact"));
    try {
      const count = async (threadId: string) =>
        Number(
          (
            await backend.pool.query<{ n: string }>("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = $1", [
              threadId,
            ])
          ).rows[0]!.n,
        );
      const script = [callsMessage([{ name: "read_a", args: { query: "x" } }]), answerMessage("Done.")];
      const user = { userId: "tester", role: "operator" };
      const types = async (graph: ReturnType<typeof scriptedLoop>["graph"], threadId: string) =>
        ((await graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType).messages.map(
          (message) => message.getType(),
        );

      const latest = scriptedLoop(backend, script, { keepHistory: false }).graph;
      await latest.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "latest", ...user } });
      const before = await count("latest");
      expect((await backend.storage.compactThread("latest")).checkpoints).toBe(before - 1);
      expect(await count("latest")).toBe(1);
      expect(await types(latest, "latest")).toEqual(["human", "ai", "tool", "ai"]);

      const history = scriptedLoop(backend, script).graph;
      await history.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "history", ...user } });
      const kept = await count("history");
      expect(await backend.storage.compactThread("history")).toEqual({ checkpoints: 0, writes: 0, blobs: 0 });
      expect(await count("history")).toBe(kept);
      expect(await types(history, "history")).toEqual(["human", "ai", "tool", "ai"]);
      // Opened latest-only, the history thread reads whole and loses nothing to compaction.
      const reopened = scriptedLoop(backend, [answerMessage("Again.")], { keepHistory: false }).graph;
      await reopened.invoke(
        { messages: [new HumanMessage("more")] },
        { configurable: { thread_id: "history", ...user } },
      );
      // PostgresSaver stores a channel's value per version: the channels that run did not write
      // (memory) still have only their writes, so compaction keeps what rebuilds them.
      const beforeCompacting = await count("history");
      await backend.storage.compactThread("history");
      expect(await count("history")).toBeLessThanOrEqual(beforeCompacting);
      expect(await count("history")).toBeGreaterThan(1);
      expect(await types(reopened, "history")).toEqual(["human", "ai", "tool", "ai", "human", "ai"]);
      expect(await types(history, "history")).toEqual(["human", "ai", "tool", "ai", "human", "ai"]);
    } finally {
      await backend.close();
    }
  });
});
