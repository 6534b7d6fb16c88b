import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { testTools } from "../fixtures/test-tools.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-cancel-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("cancel", () => {
  it("reaches a run held by another runtime on the same database", async () => {
    const env = loadEnv({ OPSPILOT_DB: join(directory, "shared.sqlite") });
    const script = [callsMessage([{ name: "read_a", args: { query: "slow" } }]), answerMessage("never")];
    const runner = createApp({
      env,
      model: new ScriptedChatModel({ script }),
      tools: () => testTools({ readDelayMs: 5_000 }),
    });
    const other = createApp({ env, model: new ScriptedChatModel({ script: [] }), tools: () => testTools() });
    try {
      const user = { id: "local", role: "operator" };
      const threadId = await runner.runtime.createThread(user);
      const started = performance.now();
      const running = collectEvents(await runner.runtime.startRun({ threadId, message: "slow", user }));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await other.runtime.cancelRun(threadId, user)).toBe(true);
      const events = await running;
      expect(performance.now() - started).toBeLessThan(4_000);
      expect(events.filter((event) => event.type === "tool_result")).toMatchObject([
        { tool: "read_a", ok: false, errorCode: "cancelled" },
      ]);
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "cancelled" });
      expect(await other.runtime.cancelRun(threadId, user)).toBe(false);
    } finally {
      await runner.close();
      await other.close();
    }
  });
});
