import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { testTools } from "../fixtures/test-tools.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-handoff-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const user = { id: "local", role: "operator" };
const writeCall = callsMessage([{ name: "write_low", args: { target: "cache", environment: "staging" } }]);

/** Two runtimes on one database: `first` runs a slow write, `second` is the replica left serving. */
function twoReplicas(name: string, graceMs: number, writes: string[]): { first: App; second: App } {
  const env = loadEnv({ OPSPILOT_DB: join(directory, `${name}.sqlite`) });
  const first = createApp({
    env,
    model: new ScriptedChatModel({ script: [writeCall, answerMessage("answered by the first")] }),
    tools: () => testTools({ writeDelayMs: 1_500, writes }),
    shutdownGraceMs: graceMs,
  });
  const second = createApp({
    env,
    model: new ScriptedChatModel({ script: [answerMessage("The cache was flushed in staging.")] }),
    tools: () => testTools({ writes }),
  });
  return { first, second };
}

describe("draining a runtime at shutdown", () => {
  it("stops a run at its next checkpoint, and another runtime finishes it without running the write again", async () => {
    const writes: string[] = [];
    const { first, second } = twoReplicas("handoff", 10_000, writes);
    try {
      const threadId = await first.runtime.createThread(user);
      const running = collectEvents(await first.runtime.startRun({ threadId, message: "flush the cache", user }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      await first.runtime.drain();
      expect(performance.now() - started).toBeLessThan(5_000);
      const handedOver = await running;
      expect(handedOver.map((event) => event.type)).toEqual(["run_started", "tool_call", "tool_result"]);
      expect(handedOver[2]).toMatchObject({ tool: "write_low", ok: true });
      expect(await second.runtime.getThread(threadId, user)).toMatchObject({ status: "idle", unfinished: true });

      const recovered = await collectEvents(await second.runtime.recoverRun(threadId, user));
      expect(recovered.map((event) => event.type)).toEqual(["run_started", "assistant_message", "run_finished"]);
      expect(recovered.at(-1)).toMatchObject({ stopReason: "final_answer" });
      expect(writes).toEqual([`write_low:cache:staging:${threadId}:${(handedOver[1] as { callId: string }).callId}`]);
      expect((await second.runtime.getThread(threadId, user)).unfinished).toBeUndefined();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("cancels a run that does not reach a checkpoint within the grace, its interrupted write answered outcome_unknown", async () => {
    const writes: string[] = [];
    const { first, second } = twoReplicas("cancel", 200, writes);
    try {
      const threadId = await first.runtime.createThread(user);
      const running = collectEvents(await first.runtime.startRun({ threadId, message: "flush the cache", user }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first.runtime.drain();
      const events = await running;
      expect(events.filter((event) => event.type === "tool_result")).toMatchObject([
        { tool: "write_low", ok: false, errorCode: "outcome_unknown" },
      ]);
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "cancelled" });
      expect(writes).toEqual([]);
      expect(await second.runtime.getThread(threadId, user)).toMatchObject({ status: "idle" });
      expect((await second.runtime.getThread(threadId, user)).unfinished).toBeUndefined();
    } finally {
      await first.close();
      await second.close();
    }
  });
});
