import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, type PostgresBackend } from "../../src/storage/postgres/open-postgres.js";
import { ConfigError } from "../../src/contracts/errors.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe.skipIf(skipPostgres)("PostgresStorage shared by two processes", () => {
  let cluster: PostgresCluster;
  // Two pools on one database stand for two opspilot processes.
  let first: PostgresBackend;
  let second: PostgresBackend;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    console.log(`[postgres] private cluster started in ${cluster.startSeconds.toFixed(2)} s`);
    // Opened together: schema set-up must not race.
    [first, second] = await Promise.all([openPostgres(cluster.url), openPostgres(cluster.url)]);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await cluster?.stop();
  });

  it("starts a write's journal entry exactly once when both processes race for each call", async () => {
    const callIds = range(1, 25).map((n) => `w${n}`);
    const outcomes = await Promise.all(
      callIds.map(async (callId) => {
        const entry = { threadId: "journal-thread", callId, tool: "restart_service", argsHash: `hash-${callId}` };
        return Promise.all([first.storage.startEntry(entry), second.storage.startEntry(entry)]);
      }),
    );
    expect(outcomes.map((pair) => pair.filter(Boolean).length)).toEqual(callIds.map(() => 1));

    await first.storage.finishEntry("journal-thread", "w1", { ok: true, data: { restarted: true } });
    expect(await second.storage.getEntry("journal-thread", "w1")).toEqual({
      threadId: "journal-thread",
      callId: "w1",
      tool: "restart_service",
      argsHash: "hash-w1",
      state: "finished",
      observation: { ok: true, data: { restarted: true } },
    });
    expect(await second.storage.getEntry("journal-thread", "w2")).toMatchObject({
      state: "started",
      observation: undefined,
    });
    expect(
      await first.storage.startEntry({
        threadId: "journal-thread",
        callId: "w1",
        tool: "restart_service",
        argsHash: "hash-w1",
      }),
    ).toBe(false);
  });

  it("numbers a thread's events 1..n without gaps when both processes append at once", async () => {
    const appended = await Promise.all(
      range(1, 60).map((n) =>
        (n % 2 ? first : second).storage.appendEvent("events-thread", `run-${n % 2 ? "a" : "b"}`, {
          type: "run_started",
        }),
      ),
    );
    expect(appended.map((event) => event.seq).sort((a, b) => a - b)).toEqual(range(1, 60));
    const stored = await second.storage.eventsAfter("events-thread", 0);
    expect(stored.map((event) => event.seq)).toEqual(range(1, 60));
    expect(stored.filter((event) => event.runId === "run-a")).toHaveLength(30);
    expect(await first.storage.eventsAfter("events-thread", 57)).toEqual([
      { type: "run_started", threadId: "events-thread", runId: stored[57]!.runId, seq: 58 },
      { type: "run_started", threadId: "events-thread", runId: stored[58]!.runId, seq: 59 },
      { type: "run_started", threadId: "events-thread", runId: stored[59]!.runId, seq: 60 },
    ]);
    expect(await first.storage.eventsAfter("other-thread", 0)).toEqual([]);
  });

  it("numbers batches of events in order, each batch contiguous, when both processes append batches at once", async () => {
    const batch = (n: number) =>
      range(1, 3).map((i) => ({
        type: "assistant_message" as const,
        messageId: `m${n}-${i}`,
        content: `batch ${n}, ${i}`,
      }));
    const appended = await Promise.all(
      range(1, 20).map((n) => (n % 2 ? first : second).storage.appendEvents("batch-thread", `run-${n}`, batch(n))),
    );
    for (const events of appended) {
      // Each batch's numbers follow one another, in the order of its bodies.
      expect(events.map((event) => event.seq)).toEqual(range(events[0]!.seq, events[0]!.seq + 2));
      expect(events.map((event) => (event as { content: string }).content)).toEqual(
        batch(Number(events[0]!.runId.slice(4))).map((body) => body.content),
      );
    }
    const stored = await second.storage.eventsAfter("batch-thread", 0);
    expect(stored.map((event) => event.seq)).toEqual(range(1, 60));
    expect(stored).toEqual(appended.flat().sort((a, b) => a.seq - b.seq));
    expect(await first.storage.appendEvents("batch-thread", "run-x", [])).toEqual([]);
    expect((await first.storage.appendEvent("batch-thread", "run-x", { type: "run_started" })).seq).toBe(61);
  });

  it("gives a thread's lease to one process at a time", async () => {
    const won = await Promise.all([
      first.storage.acquireLease("lease-thread", "run-a", 60_000),
      second.storage.acquireLease("lease-thread", "run-b", 60_000),
    ]);
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = won[0] ? "run-a" : "run-b";
    const [holder, loser] = won[0] ? [first, second] : [second, first];
    expect(await loser.storage.leaseHolder("lease-thread")).toBe(winner);
    expect(await loser.storage.acquireLease("lease-thread", "run-c", 60_000)).toBe(false);
    await loser.storage.releaseLease("lease-thread", "run-c");
    expect(await holder.storage.leaseHolder("lease-thread")).toBe(winner);
    expect(await holder.storage.cancelRequested("lease-thread", winner)).toBe(false);
    expect(await loser.storage.requestCancel("lease-thread")).toBe(true);
    expect(await holder.storage.cancelRequested("lease-thread", winner)).toBe(true);
    await holder.storage.renewLease("lease-thread", winner, 60_000);
    expect(await loser.storage.acquireLease("lease-thread", "run-c", 60_000)).toBe(false);
    await holder.storage.releaseLease("lease-thread", winner);
    expect(await loser.storage.requestCancel("lease-thread")).toBe(false);
    expect(await loser.storage.leaseHolder("lease-thread")).toBeUndefined();
    expect(await loser.storage.acquireLease("lease-thread", "run-c", 60_000)).toBe(true);
  });

  it("frees an expired lease and one whose process on this host died, but trusts another host's until it expires", async () => {
    expect(await first.storage.acquireLease("expiring-thread", "run-a", 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await second.storage.acquireLease("expiring-thread", "run-b", 60_000)).toBe(true);

    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    await first.pool.query("INSERT INTO opspilot_leases VALUES ('orphan-thread', 'run-dead', $1, 9e15)", [
      `${hostname()}:${deadPid}`,
    ]);
    expect(await second.storage.leaseHolder("orphan-thread")).toBeUndefined();
    expect(await second.storage.acquireLease("orphan-thread", "run-b", 60_000)).toBe(true);

    await first.pool.query("INSERT INTO opspilot_leases VALUES ('remote-thread', 'run-far', 'another-host:1', 9e15)");
    expect(await second.storage.acquireLease("remote-thread", "run-b", 60_000)).toBe(false);
    expect(await second.storage.leaseHolder("remote-thread")).toBe("run-far");
  });

  it("keeps records and sums them up like the SQLite storage", async () => {
    const records = await openPostgres(await cluster.createDatabase("opspilot_records"));
    try {
      const storage = records.storage;
      await storage.recordRunStart({ runId: "run-1", threadId: "t1", userId: "alice", startedAt: 1_700_000_000_000 });
      await storage.recordStep({
        runId: "run-1",
        step: 1,
        latencyMs: 12,
        inputTokens: 100,
        outputTokens: 20,
        toolCalls: 2,
        costUsd: 0.0004,
      });
      // One statement for the step's calls; c1 listed twice keeps its last record, in its last place.
      await storage.recordToolCalls([
        {
          runId: "run-1",
          threadId: "t1",
          callId: "c1",
          tool: "search_docs",
          argsDigest: "d0",
          outcome: "interrupt",
          durationMs: 0,
        },
        {
          runId: "run-1",
          threadId: "t1",
          callId: "c2",
          tool: "search_logs",
          argsDigest: "d2",
          argsSummary: "service=payment-service",
          outcome: "error",
          errorCode: "timeout",
          durationMs: 50,
        },
        {
          runId: "run-1",
          threadId: "t1",
          callId: "c1",
          tool: "search_docs",
          argsDigest: "d1",
          outcome: "ok",
          durationMs: 7,
        },
      ]);
      await storage.recordDecision({
        threadId: "t1",
        callId: "c1",
        interruptId: "i1",
        action: "edit",
        userId: "alice",
        role: "admin",
        argsHashBefore: "h1",
        argsHashAfter: "h2",
      });
      await storage.recordRunEnd({
        runId: "run-1",
        stopReason: "interrupted",
        steps: 1,
        durationMs: 90,
        resumed: false,
      });
      await storage.recordRunStart({ runId: "run-2", threadId: "t1", userId: "alice", startedAt: 1_700_000_001_000 });
      await storage.recordRunEnd({
        runId: "run-2",
        stopReason: "final_answer",
        steps: 2,
        durationMs: 40,
        resumed: true,
      });
      await storage.recordRunStart({ runId: "run-3", threadId: "t2", userId: "bob", startedAt: 1_700_000_002_000 });

      const { runs, toolCalls, steps, decisions } = await storage.threadRecords("t1");
      expect(
        runs.map((run) => [run.run_id, run.stop_reason, run.steps, run.duration_ms, run.resumed, run.started_at]),
      ).toEqual([
        ["run-1", "interrupted", 1, 90, 0, 1_700_000_000_000],
        ["run-2", "final_answer", 2, 40, 1, 1_700_000_001_000],
      ]);
      expect(toolCalls).toEqual([
        {
          thread_id: "t1",
          call_id: "c2",
          run_id: "run-1",
          tool: "search_logs",
          args_digest: "d2",
          outcome: "error",
          error_code: "timeout",
          duration_ms: 50,
          args_summary: "service=payment-service",
        },
        {
          thread_id: "t1",
          call_id: "c1",
          run_id: "run-1",
          tool: "search_docs",
          args_digest: "d1",
          outcome: "ok",
          error_code: null,
          duration_ms: 7,
          args_summary: null,
        },
      ]);
      expect(steps).toEqual([
        {
          run_id: "run-1",
          step: 1,
          latency_ms: 12,
          input_tokens: 100,
          output_tokens: 20,
          tool_calls: 2,
          cost_usd: 0.0004,
        },
      ]);
      expect(decisions).toMatchObject([
        {
          call_id: "c1",
          interrupt_id: "i1",
          action: "edit",
          args_hash_before: "h1",
          args_hash_after: "h2",
          message: null,
          user_id: "alice",
          role: "admin",
        },
      ]);
      // run-1 still waits in its pause; run-2 paused, was resumed and finished.
      expect(await storage.summary({ since: 1_700_000_000_000, until: 1_700_000_003_000 })).toMatchObject({
        runs: 1,
        averageSteps: 2,
        toolCalls: 2,
        toolFailureRate: 0.5,
        stopReasons: { final_answer: 1 },
        resumedAndFinished: 1,
        pauses: { paused: 2, resumedAndFinished: 1, waiting: 1, resumeFinishRate: 0.5 },
      });
    } finally {
      await records.close();
    }
  });

  it("adds who answered to the decisions of a database created before it was recorded", async () => {
    const url = await cluster.createDatabase("opspilot_decisions_upgrade");
    const old = new pg.Client({ connectionString: url });
    await old.connect();
    try {
      await old.query(`CREATE TABLE opspilot_decisions (
        thread_id TEXT NOT NULL, call_id TEXT NOT NULL, interrupt_id TEXT NOT NULL, action TEXT NOT NULL,
        args_hash_before TEXT NOT NULL, args_hash_after TEXT, message TEXT, decided_at BIGINT NOT NULL,
        seq BIGSERIAL NOT NULL, PRIMARY KEY (thread_id, call_id))`);
      await old.query(
        "INSERT INTO opspilot_decisions (thread_id, call_id, interrupt_id, action, args_hash_before, decided_at) VALUES ('t1', 'old', 'i0', 'approve', 'h0', 1)",
      );
    } finally {
      await old.end();
    }
    const upgraded = await openPostgres(url);
    try {
      await upgraded.storage.recordDecision({
        threadId: "t1",
        callId: "new",
        interruptId: "i1",
        action: "approve",
        userId: "root",
        role: "admin",
        argsHashBefore: "h1",
        argsHashAfter: "h1",
      });
      const { decisions } = await upgraded.storage.threadRecords("t1");
      expect(decisions.map((row) => [row.call_id, row.action, row.user_id, row.role])).toEqual([
        ["old", "approve", null, null],
        ["new", "approve", "root", "admin"],
      ]);
    } finally {
      await upgraded.close();
    }
  });

  it("keeps the full raw result of a call, addressable by call id", async () => {
    await first.storage.saveResult("results-thread", "c1", "big", { text: "x\u0000y", rows: [1, 2] });
    // A result is committed before saveResult returns: another process reads it at once.
    expect(await second.storage.getResult("results-thread", "c1")).toEqual({
      tool: "big",
      raw: { text: "x\u0000y", rows: [1, 2] },
    });
    expect(await second.storage.getResult("results-thread", "c2")).toBeUndefined();
  });

  it("reports an unreachable database as a configuration error without the password", async () => {
    const error = await openPostgres("postgresql://ops:hunter22@127.0.0.1:1/opspilot").catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^Cannot set up PostgreSQL at postgresql:\/\/ops:\*\*\*@127\.0\.0\.1:1\/opspilot: .*ECONNREFUSED/,
    );
    expect((error as Error).message).not.toContain("hunter22");
  });
});
