import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/storage/open-sqlite.js";
import { collectEvents } from "../../../src/service/create-runtime.js";
import { readSteps, scriptedLoop } from "../../fixtures/read-steps.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-events-with-checkpoint-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const user = { id: "local", role: "operator" };

describe("a step's events on SQLite", () => {
  it("commit in the transaction of the checkpoint that holds the step, and go out in order", async () => {
    const path = join(directory, "events.sqlite");
    const backend = openSqlite(path);
    const reader = new BetterSqlite3(path, { readonly: true });
    const committed = (threadId: string) =>
      (
        reader.prepare("SELECT type FROM opspilot_events WHERE thread_id = ? ORDER BY seq").all(threadId) as Array<{
          type: string;
        }>
      ).map((row) => row.type);
    // The saver's own save, wrapped before the runtime watches it: what each save committed, seen from another connection.
    const saves: string[][] = [];
    let watched = "";
    const put = backend.checkpointer.put.bind(backend.checkpointer);
    backend.checkpointer.put = async (...args) => {
      const before = committed(watched).length;
      const saved = await put(...args);
      saves.push(committed(watched).slice(before));
      return saved;
    };
    const alone: string[] = [];
    const appendEvent = backend.storage.appendEvent.bind(backend.storage);
    backend.storage.appendEvent = (id, runId, body) => {
      alone.push(body.type);
      return appendEvent(id, runId, body);
    };
    const { runtime } = scriptedLoop(backend, readSteps(2));
    try {
      const threadId = await runtime.createThread(user);
      watched = threadId;
      const events = await collectEvents(await runtime.startRun({ threadId, message: "go", user }));
      const types = events.map((event) => event.type);
      expect(types).toEqual([
        "run_started",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "assistant_message",
        "run_finished",
      ]);
      expect(events.map((event) => ("seq" in event ? event.seq : undefined))).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(committed(threadId)).toEqual(types);
      // Only the run's start and end are appended on their own: each step's events came with its checkpoint.
      expect(alone).toEqual(["run_started", "run_finished"]);
      expect(saves.filter((saved) => saved.length > 0)).toEqual([
        ["tool_call"],
        ["tool_result"],
        ["tool_call"],
        ["tool_result"],
        ["assistant_message"],
      ]);
    } finally {
      reader.close();
      await runtime.close();
      backend.close();
    }
  });
  it("sends, in order and once, the events of a step whose save failed, when a later commit takes them", async () => {
    const path = join(directory, "failed-save.sqlite");
    const backend = openSqlite(path);
    // The second step's save fails once, in its transaction, after its events were queued in it.
    const drain = backend.storage.drainRecords.bind(backend.storage);
    let saves = 0;
    const put = backend.checkpointer.put.bind(backend.checkpointer);
    backend.checkpointer.put = async (...args) => {
      saves += 1;
      return put(...args);
    };
    let failed = false;
    backend.storage.drainRecords = () => {
      if (!failed && saves === 4) {
        failed = true;
        throw new Error("disk full");
      }
      drain();
    };
    const { runtime } = scriptedLoop(backend, readSteps(2));
    try {
      const threadId = await runtime.createThread(user);
      const events = await collectEvents(await runtime.startRun({ threadId, message: "go", user }));
      expect(failed).toBe(true);
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "error" });
      const seqs = events.map((event) => ("seq" in event ? event.seq : undefined));
      expect(seqs).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
      const stored = (await backend.storage.eventsAfter(threadId, 0)).map((event) => [event.seq, event.type]);
      expect(stored).toEqual(events.map((event) => ["seq" in event ? event.seq : 0, event.type]));
    } finally {
      await runtime.close();
      backend.close();
    }
  });
});
