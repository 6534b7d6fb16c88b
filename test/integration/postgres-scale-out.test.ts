import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { NotPausedError, ThreadBusyError } from "../../src/contracts/errors.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptStep } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { startFromEnv } from "../../src/server/start.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { testTools } from "../fixtures/test-tools.js";

const user = { id: "alice", role: "operator" };
const pauseOf = (events: RunEvent[]) =>
  events.find((event) => event.type === "loop_interrupt") as unknown as PauseValue;

/** One opspilot process: its app, its own scripted model and the writes its tools made. */
interface Instance {
  app: App;
  model: ScriptedChatModel;
  writes: string[];
}

describe.skipIf(skipPostgres)("several opspilot processes sharing one PostgreSQL database", () => {
  let cluster: PostgresCluster;
  let directory: string;
  let opened: Instance[] = [];
  let instances = 0;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    console.log(`[postgres] private cluster started in ${cluster.startSeconds.toFixed(2)} s`);
    directory = mkdtempSync(join(tmpdir(), "opspilot-scale-"));
  });

  afterEach(async () => {
    await Promise.all(opened.map((instance) => instance.app.close()));
    opened = [];
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Opens an instance the way a separate process would: its own pool, model, tools and demo file. */
  async function instance(script: ScriptStep[], writeDelayMs = 0): Promise<Instance> {
    const writes: string[] = [];
    const model = new ScriptedChatModel({ script });
    const env = loadEnv({ DATABASE_URL: cluster.url, OPSPILOT_DB: join(directory, `instance-${++instances}.sqlite`) });
    const app = await openApp({ env, model, tools: () => testTools({ writes, writeDelayMs }) });
    const created = { app, model, writes };
    opened.push(created);
    return created;
  }

  it("resumes on B, by thread id, a run that paused on A for a missing parameter", async () => {
    const [a, b] = await Promise.all([
      instance([
        callsMessage([
          { name: "read_a", args: { query: "pay" }, id: "r1" },
          { name: "write_low", args: { target: "pay" }, id: "w1" },
        ]),
      ]),
      instance([answerMessage("Restarted pay on staging.")]),
    ]);
    const threadId = await a.app.runtime.createThread(user);
    const paused = await collectEvents(await a.app.runtime.startRun({ threadId, message: "restart pay", user }));
    expect(pauseOf(paused)).toMatchObject({
      interruptType: "params_required",
      calls: [{ callId: "w1", tool: "write_low", missing: [{ name: "environment" }] }],
    });
    expect(paused.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
    expect(await b.app.runtime.getThread(threadId, user)).toMatchObject({
      status: "interrupted",
      interrupt: { interruptType: "params_required" },
    });

    const decision = {
      callId: "w1",
      action: "approve",
      argsHash: pauseOf(paused).calls[0]!.argsHash,
      params: { environment: "staging" },
    };
    const resumed = await collectEvents(
      await b.app.runtime.resumeRun({ threadId, user, resume: { decisions: [decision] } }),
    );
    expect(resumed.map((event) => event.type)).toEqual([
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(resumed.at(-1)).toMatchObject({ stopReason: "final_answer" });
    expect(a.writes).toEqual([]);
    expect(b.writes).toEqual([`write_low:pay:staging:${threadId}:w1`]);
    expect([a.model.calls.length, b.model.calls.length]).toEqual([1, 1]);

    const seen = await a.app.runtime.getThread(threadId, user);
    expect(seen.status).toBe("idle");
    expect(seen.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    expect(seen.messages.at(-1)).toMatchObject({ role: "assistant", content: "Restarted pay on staging." });
    const log = await a.app.runtime.eventsAfter(threadId, user, 0);
    expect(log.map((event) => event.seq)).toEqual(
      Array.from({ length: paused.length + resumed.length }, (_, index) => index + 1),
    );
    expect(log.map((event) => event.type)).toEqual([...paused, ...resumed].map((event) => event.type));
  });

  it("runs the write once when A and B resume the same paused thread at the same moment", async () => {
    // Either process may win, so both answer the same way for every thread.
    const step: ScriptStep = (call) =>
      call.messages.at(-1)?.getType() === "human"
        ? callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" }, id: "w1" }])
        : answerMessage("Restarted pay in prod.");
    const script = Array.from({ length: 20 }, () => step);
    const [a, b] = await Promise.all([instance(script, 300), instance(script, 300)]);
    const busy: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const threadId = await a.app.runtime.createThread(user);
      const paused = await collectEvents(
        await a.app.runtime.startRun({ threadId, message: "restart pay in prod", user }),
      );
      expect(pauseOf(paused)).toMatchObject({
        interruptType: "confirm_risky",
        calls: [{ callId: "w1", tool: "write_high" }],
      });
      const request = {
        threadId,
        user,
        resume: { decisions: [{ callId: "w1", action: "approve", argsHash: pauseOf(paused).calls[0]!.argsHash }] },
      };

      const settled = await Promise.allSettled([a.app.runtime.resumeRun(request), b.app.runtime.resumeRun(request)]);
      const winners = settled.filter((outcome) => outcome.status === "fulfilled");
      const losers = settled.filter((outcome) => outcome.status === "rejected");
      expect([winners.length, losers.length]).toEqual([1, 1]);
      expect(losers[0]!.reason).toBeInstanceOf(ThreadBusyError);
      busy.push((losers[0]!.reason as ThreadBusyError).code);
      const events = await collectEvents(winners[0]!.value);
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });

      const key = `${threadId}:w1`;
      expect([...a.writes, ...b.writes].filter((write) => write.endsWith(key))).toEqual([`write_high:pay:prod:${key}`]);
      expect(await b.app.storage.getEntry(threadId, "w1")).toMatchObject({
        state: "finished",
        observation: { ok: true },
      });
      expect((await b.app.runtime.getThread(threadId, user)).status).toBe("idle");
      await expect(a.app.runtime.resumeRun(request)).rejects.toBeInstanceOf(NotPausedError);
    }
    expect(busy).toEqual(["thread_busy", "thread_busy", "thread_busy"]);
  });

  it("serves the HTTP API from PostgreSQL when DATABASE_URL is set", async () => {
    const server = await startFromEnv(
      loadEnv({
        DATABASE_URL: cluster.url,
        OPSPILOT_DB: join(directory, "server.sqlite"),
        PORT: "0",
        OPSPILOT_LOG_LEVEL: "silent",
      }),
    );
    try {
      const created = await fetch(`${server.url}/api/threads`, { method: "POST" });
      expect(created.status).toBe(201);
      const { threadId } = (await created.json()) as { threadId: string };
      const other = await instance([]);
      expect(await other.app.runtime.getThread(threadId, { id: "local", role: "operator" })).toEqual({
        threadId,
        status: "idle",
        messages: [],
      });
    } finally {
      await server.close();
    }
  });
});
