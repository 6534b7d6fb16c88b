import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite, type SqliteBackend } from "../../../src/storage/open-sqlite.js";
import { readSteps, scriptedLoop } from "../../fixtures/read-steps.js";

const user = { id: "tester", role: "operator" };
const directories: string[] = [];

/** The backend on a temp file, and a second connection that sees only committed rows. */
function openPair(): { backend: SqliteBackend; count: (table: string) => number; close: () => void } {
  const directory = mkdtempSync(join(tmpdir(), "step-records-"));
  directories.push(directory);
  const path = join(directory, "db.sqlite");
  const backend = openSqlite(path);
  const reader = new BetterSqlite3(path, { readonly: true });
  const count = (table: string) => (reader.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    backend,
    count,
    close: () => {
      reader.close();
      backend.close();
    },
  };
}

const run = { runId: "r1", threadId: "t1", userId: user.id, startedAt: Date.now() };
const step = { runId: "r1", step: 1, latencyMs: 3, inputTokens: 10, outputTokens: 2, toolCalls: 1, costUsd: 0 };

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("a step's records commit with the step's checkpoint writes", () => {
  it("records made by a node become visible in the same commit as that node's writes", async () => {
    const { backend, count, close } = openPair();
    const steps = 2;
    const { graph } = scriptedLoop(backend, readSteps(steps));
    await backend.storage.createThread("t1", user.id);
    await backend.storage.recordRunStart(run);
    const saver = backend.checkpointer;
    const seen: Array<{ channels: string[]; before: number[]; after: number[] }> = [];
    const tables = ["opspilot_steps", "opspilot_tool_calls", "opspilot_results"];
    const putWrites = saver.putWrites.bind(saver);
    saver.putWrites = async (config, writes, taskId) => {
      const before = tables.map(count);
      await putWrites(config, writes, taskId);
      seen.push({ channels: writes.map(([channel]) => channel), before, after: tables.map(count) });
    };
    await graph.invoke(
      { messages: [new HumanMessage("go")] },
      { configurable: { thread_id: "t1", run_id: "r1", userId: user.id, role: user.role } },
    );
    saver.putWrites = putWrites;
    const modelTurns = seen.filter((turn) => turn.channels.includes("branch:to:execute_tools"));
    // execute_tools writes the working memory; the input also routes to call_model, but writes none.
    const toolTurns = seen.filter((turn) => turn.channels.includes("memory"));
    expect(modelTurns).toHaveLength(steps);
    expect(toolTurns).toHaveLength(steps);
    // Before call_model's writes commit, its step row is not in the database; in that commit it is.
    modelTurns.forEach((turn, i) => {
      expect(turn.before[0]).toBe(i);
      expect(turn.after[0]).toBe(i + 1);
    });
    // The same for execute_tools: the tool-call row and the stored result commit with its writes.
    toolTurns.forEach((turn, i) => {
      expect(turn.before.slice(1)).toEqual([i, i]);
      expect(turn.after.slice(1)).toEqual([i + 1, i + 1]);
    });
    close();
  });

  it("commits records on their own in the next event-loop iteration when no checkpoint comes", async () => {
    const { backend, count, close } = openPair();
    await backend.storage.createThread("t1", user.id);
    await backend.storage.recordRunStart(run);
    await backend.storage.recordStep(step);
    expect(count("opspilot_steps")).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(count("opspilot_steps")).toBe(1);
    expect(count("opspilot_usage")).toBe(1);
    close();
  });

  it("shows a record just made to every read of records in the process", async () => {
    const { backend, count, close } = openPair();
    await backend.storage.createThread("t1", user.id);
    await backend.storage.recordRunStart(run);
    await backend.storage.recordStep(step);
    await backend.storage.saveResult("t1", "c1", "read_a", { rows: [1, 2] });
    const records = await backend.storage.threadRecords("t1");
    expect(records.steps).toHaveLength(1);
    expect(await backend.storage.getResult("t1", "c1")).toEqual({ tool: "read_a", raw: { rows: [1, 2] } });
    expect((await backend.storage.usageOn(user.id, new Date().toISOString().slice(0, 10))).tokens).toBe(12);
    expect(count("opspilot_steps")).toBe(1);
    close();
  });

  it("commits the records made before an event in that event's commit: a run's end before its run_finished", async () => {
    const { backend, close } = openPair();
    await backend.storage.createThread("t1", user.id);
    await backend.storage.recordRunStart(run);
    await backend.storage.recordRunEnd({
      runId: "r1",
      stopReason: "final_answer",
      steps: 1,
      durationMs: 5,
      resumed: false,
    });
    const reader = new BetterSqlite3(backend.db.name, { readonly: true });
    const finished = () =>
      (
        reader.prepare("SELECT finished_at FROM opspilot_runs WHERE run_id = 'r1'").get() as
          { finished_at: number | null } | undefined
      )?.finished_at ?? null;
    expect(finished()).toBeNull();
    await backend.storage.appendEvent("t1", "r1", {
      type: "run_finished",
      stopReason: "final_answer",
      steps: 1,
      durationMs: 5,
    } as never);
    expect(finished()).not.toBeNull();
    reader.close();
    close();
  });

  it("rolls the checkpoint writes back with a record that cannot be written, and keeps the record waiting", async () => {
    const { backend, count, close } = openPair();
    await backend.storage.createThread("t1", user.id);
    await backend.storage.recordRunStart(run);
    await backend.storage.recordToolCall({
      runId: "r1",
      threadId: "t1",
      callId: "c1",
      tool: "read_a",
      argsDigest: "d",
      outcome: "ok",
      durationMs: 1,
    });
    // The record's table is gone for a moment: its insert fails inside the saver's transaction.
    backend.db.exec("ALTER TABLE opspilot_tool_calls RENAME TO opspilot_tool_calls_away");
    const config = { configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: "cp1" } };
    await expect(backend.checkpointer.putWrites(config, [["messages", "x"]], "task1")).rejects.toThrow();
    expect(count("writes")).toBe(0);
    backend.db.exec("ALTER TABLE opspilot_tool_calls_away RENAME TO opspilot_tool_calls");
    await backend.checkpointer.putWrites(config, [["messages", "x"]], "task1");
    expect(count("writes")).toBe(1);
    expect(count("opspilot_tool_calls")).toBe(1);
    close();
  });
});
