import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import type { BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import type { ThreadView } from "../../src/service/runtime/runtime.js";
import { migrateChannelSqlite } from "../../src/storage/sqlite/sqlite-legacy-migration.js";

const legacy = (name: string) => fileURLToPath(new URL(`../fixtures/legacy/${name}`, import.meta.url));

/** Each thread of the fixture as opspilot e77a9b3 showed it (`make-fixture.ts`). */
const old = JSON.parse(readFileSync(legacy("opspilot-e77a9b3.threads.json"), "utf8")) as {
  threads: Record<"confirmRisky" | "paramsRequired" | "finished", ThreadView>;
};
const { confirmRisky, paramsRequired, finished } = old.threads;

const user = { id: "local", role: "operator" };

let directory: string;
let path: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "opspilot-legacy-"));
  path = join(directory, "opspilot.sqlite");
  copyFileSync(legacy("opspilot-e77a9b3.sqlite"), path);
});

afterEach(() => rmSync(directory, { recursive: true, force: true }));

const toolResult = (events: RunEvent[], tool: string) =>
  events.find((event) => event.type === "tool_result" && event.tool === tool);
/** The run's last answer, its clock times (the demo dataset's "now") written as <time>. */
const answerOf = (events: RunEvent[]) =>
  (events.filter((event) => event.type === "assistant_message").at(-1) as { content: string }).content.replace(
    /\d{4}-\d\d-\d\dT[\d:.]+Z/g,
    "<time>",
  );

describe("a SQLite file written by opspilot e77a9b3", () => {
  it("migrates its three threads once, into checkpoints the stock SqliteSaver reads", async () => {
    const db = new BetterSqlite3(path);
    try {
      expect(migrateChannelSqlite(db)).toBe(3);
      expect(migrateChannelSqlite(db)).toBe(0);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'opspilot_checkpoint_blobs'").all()).toEqual([]);
      const saver = new SqliteSaver(db);
      for (const view of [confirmRisky, paramsRequired, finished]) {
        const tuple = await saver.getTuple({ configurable: { thread_id: view.threadId } });
        const messages = tuple!.checkpoint.channel_values.messages as BaseMessage[];
        expect(messages.map((message) => [message.id, message.content])).toEqual(
          view.messages.map((message) => [message.id, message.content]),
        );
        const interrupts = tuple!.pendingWrites!.filter(([, channel]) => channel === "__interrupt__");
        expect(interrupts.length).toBe(view.interrupt ? 1 : 0);
      }
    } finally {
      db.close();
    }
  });

  it("opens in the app with its threads as they were, and both pauses can be answered", async () => {
    const app = createApp({ env: loadEnv({ OPSPILOT_DB: path }) });
    try {
      const listed = await app.runtime.listThreads(user, { limit: 10 });
      expect(listed.map((thread) => [thread.threadId, thread.status, thread.waitingForYou]).sort()).toEqual(
        [
          [confirmRisky.threadId, "interrupted", true],
          [paramsRequired.threadId, "interrupted", true],
          [finished.threadId, "idle", false],
        ].sort(),
      );
      for (const view of [confirmRisky, paramsRequired, finished]) {
        const { taint, ...asBefore } = await app.runtime.getThread(view.threadId, user);
        expect(asBefore).toEqual(view);
        // A thread that read tool results before taint existed is tainted by them, as one written today.
        expect(taint !== undefined).toBe(view.messages.some((message) => message.role === "tool"));
      }

      const restart = { action: "restart", service: "payment-service", environment: "prod" } as const;
      expect(await app.ops.countActions(restart)).toBe(0);
      const approved = confirmRisky.interrupt!.calls[0]!;
      const restarted = await collectEvents(
        await app.runtime.resumeRun({
          threadId: confirmRisky.threadId,
          user,
          resume: { decisions: [{ callId: approved.callId, action: "approve", argsHash: approved.argsHash }] },
        }),
      );
      expect(toolResult(restarted, "restart_service")).toMatchObject({ callId: approved.callId, ok: true });
      expect(await app.ops.countActions(restart)).toBe(1);
      expect(restarted.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
      expect(answerOf(restarted)).toBe("[demo model] Restarted payment-service in prod at <time> (restart #1).");

      const asked = paramsRequired.interrupt!.calls[0]!;
      const searched = await collectEvents(
        await app.runtime.resumeRun({
          threadId: paramsRequired.threadId,
          user,
          resume: {
            decisions: [
              { callId: asked.callId, action: "approve", argsHash: asked.argsHash, params: { environment: "prod" } },
            ],
          },
        }),
      );
      expect(toolResult(searched, "search_logs")).toMatchObject({
        callId: asked.callId,
        ok: true,
        summary: "33 match(es)",
        args: { service: "payment-service", environment: "prod", level: "ERROR", sinceHours: 24, limit: 20 },
      });
      expect(answerOf(searched)).toBe(
        [
          "[demo model] Payment Service (payment-service, owner payments-team) in prod logged 33 ERROR entries recently, by code:",
          "",
          "- PAY-5031: 24× (last <time>), e.g. Upstream bank gateway timeout after 3350ms (channel=ICBC, order=o-4c9w)",
          "- DB_POOL_EXHAUSTED: 9× (last <time>), e.g. Database connection pool exhausted (active=50/50, waiting=43), request rejected",
        ].join("\n"),
      );
      expect(searched.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });

      expect(await app.runtime.getThread(finished.threadId, user)).toEqual({
        ...finished,
        taint: { sources: ["search_resource", "search_docs", "search_logs"] },
      });
      expect((await app.runtime.getThread(confirmRisky.threadId, user)).status).toBe("idle");
    } finally {
      await app.close();
    }

    const db = new BetterSqlite3(path);
    try {
      expect(migrateChannelSqlite(db)).toBe(0);
      const tuple = await new SqliteSaver(db).getTuple({ configurable: { thread_id: finished.threadId } });
      expect((tuple!.checkpoint.channel_values.messages as BaseMessage[]).map((message) => message.id)).toEqual(
        finished.messages.map((message) => message.id),
      );
    } finally {
      db.close();
    }
  });
});
