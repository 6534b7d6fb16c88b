import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { takeoverJob } from "../../src/service/jobs/takeover.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { testTools, Timeline } from "../fixtures/test-tools.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-takeover-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const alice = { id: "alice", role: "operator" };
const writeCall = callsMessage([{ name: "write_low", args: { target: "cache", environment: "staging" } }]);
const ANSWER = "The cache was flushed in staging.";

/** An app on the file `name`: the first runs a slow write, a later one only answers. */
function appOn(name: string, role: "first" | "next", writes: string[], sweepMs?: { takeover: number }): App {
  const env = loadEnv({ OPSPILOT_DB: join(directory, `${name}.sqlite`), OPSPILOT_LOG_LEVEL: "silent" });
  const script = role === "first" ? [writeCall, answerMessage("answered by the first")] : [answerMessage(ANSWER)];
  const timeline = new Timeline();
  const app = createApp({
    env,
    model: new ScriptedChatModel({ script }),
    tools: () => testTools({ writeDelayMs: role === "first" ? 1_500 : 0, writes, timeline }),
    shutdownGraceMs: 10_000,
    sweepMs,
  });
  timelines.set(app, timeline);
  return app;
}

/** When each app's tools started and ended. */
const timelines = new Map<App, Timeline>();

/** Starts alice's run on `app` and drains it mid-write: the run is handed over after the write's step. */
async function handOver(app: App): Promise<{ threadId: string; handedOver: RunEvent[] }> {
  const threadId = await app.runtime.createThread(alice);
  const running = collectEvents(await app.runtime.startRun({ threadId, message: "flush the cache", user: alice }));
  // Drained once the write is running, however slow the machine: its step ends, the next is handed over.
  const timeline = timelines.get(app)!;
  while (!timeline.entries.some((entry) => entry.event === "start"))
    await new Promise((resolve) => setTimeout(resolve, 10));
  await app.runtime.drain();
  const handedOver = await running;
  expect(handedOver.map((event) => event.type)).toEqual(["run_started", "tool_call", "tool_result"]);
  return { threadId, handedOver };
}

const silent = { error: () => undefined };

/** A `takeover` job over `app`'s runtime and database, as the app's engine runs it. */
const jobOf = (app: App) => takeoverJob({ runtime: app.runtime, handoffs: app.storage.handoffs, logger: silent });

/** One pass of the job, and the end of the runs it took over. */
async function pass(job: ReturnType<typeof takeoverJob>): Promise<void> {
  await job.run(new AbortController().signal, Date.now());
  await job.idle();
}

describe("the takeover job", () => {
  it("recovers a recorded hand-over once, as the user it ran as, forgets it, and a second pass does nothing", async () => {
    const writes: string[] = [];
    const first = appOn("once", "first", writes);
    const second = appOn("once", "next", writes);
    try {
      const { threadId, handedOver } = await handOver(first);
      expect(await second.storage.handoffs.handoffs(10)).toEqual([
        { threadId, user: alice, handedAt: expect.any(Number) as number },
      ]);

      const job = jobOf(second);
      await pass(job);
      const after = await second.storage.eventsAfter(threadId, handedOver.at(-1)!.seq);
      expect(after.map((event) => event.type)).toEqual(["run_started", "assistant_message", "run_finished"]);
      expect(after.at(-1)).toMatchObject({ stopReason: "final_answer" });
      expect(after[1]).toMatchObject({ content: ANSWER });
      expect(writes).toEqual([`write_low:cache:staging:${threadId}:${(handedOver[1] as { callId: string }).callId}`]);
      expect(await second.storage.handoffs.handoffs(10)).toEqual([]);
      expect((await second.runtime.getThread(threadId, alice)).unfinished).toBeUndefined();

      await pass(job);
      expect(await second.storage.eventsAfter(threadId, after.at(-1)!.seq)).toEqual([]);
      expect(writes).toHaveLength(1);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("keeps a hand-over while another run holds the thread, and forgets one whose thread has nothing to recover", async () => {
    const writes: string[] = [];
    const first = appOn("busy", "first", writes);
    const second = appOn("busy", "next", writes);
    try {
      const { threadId, handedOver } = await handOver(first);
      const idle = await second.runtime.createThread(alice);
      await second.storage.handoffs.recordHandoff({ threadId: idle, user: alice, handedAt: 1 });
      expect(await second.storage.acquireLease(threadId, "someone-else", 60_000)).toBe(true);

      const job = jobOf(second);
      await pass(job);
      expect(await second.storage.handoffs.handoffs(10)).toMatchObject([{ threadId }]);
      expect(await second.storage.eventsAfter(threadId, handedOver.at(-1)!.seq)).toEqual([]);
      expect(await second.storage.eventsAfter(idle, 0)).toEqual([]);

      await second.storage.releaseLease(threadId, "someone-else");
      await pass(job);
      const after = await second.storage.eventsAfter(threadId, handedOver.at(-1)!.seq);
      expect(after.map((event) => event.type)).toEqual(["run_started", "assistant_message", "run_finished"]);
      expect(await second.storage.handoffs.handoffs(10)).toEqual([]);
      expect(writes).toHaveLength(1);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("finishes a run handed over by a process that stopped once the next process on the file starts, nobody asking", async () => {
    const writes: string[] = [];
    const first = appOn("restart", "first", writes);
    first.start();
    const { threadId, handedOver } = await handOver(first);
    await first.close();

    const next = appOn("restart", "next", writes, { takeover: 500 });
    try {
      next.start();
      const deadline = Date.now() + 10_000;
      let after: RunEvent[] = [];
      while (!after.some((event) => event.type === "run_finished") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = await next.storage.eventsAfter(threadId, handedOver.at(-1)!.seq);
      }
      expect(after.map((event) => event.type)).toEqual(["run_started", "assistant_message", "run_finished"]);
      expect(after.at(-1)).toMatchObject({ stopReason: "final_answer" });
      expect(writes).toHaveLength(1);
      expect(await next.storage.handoffs.handoffs(10)).toEqual([]);
      expect(await next.runtime.getThread(threadId, alice)).toMatchObject({ status: "idle" });
    } finally {
      await next.close();
    }
  });
});
