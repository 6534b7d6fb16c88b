import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite, type SqliteBackend } from "../../../src/storage/sqlite/open-sqlite.js";
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

describe("a step's records commit on their own", () => {
  it("records made by a node are committed before that node's checkpoint writes", async () => {
    const { backend, count, close } = openPair();
    const steps = 2;
    const { graph } = scriptedLoop(backend, readSteps(steps));
    await backend.storage.createThread("t1", user.id);
    await backend.storage.recordRunStart(run);
    const saver = backend.checkpointer;
    const seen: Array<{ channels: string[]; before: number[] }> = [];
    const tables = ["opspilot_steps", "opspilot_tool_calls", "opspilot_results"];
    const putWrites = saver.putWrites.bind(saver);
    saver.putWrites = async (config, writes, taskId) => {
      seen.push({ channels: writes.map(([channel]) => channel), before: tables.map(count) });
      await putWrites(config, writes, taskId);
    };
    await graph.invoke(
      { messages: [new HumanMessage("go")] },
      { configurable: { thread_id: "t1", run_id: "r1", userId: user.id, role: user.role } },
    );
    saver.putWrites = putWrites;
    const modelTurns = seen.filter((turn) => turn.channels.includes("branch:to:guard_calls"));
    // execute_tools writes the working memory; the input also routes to call_model, but writes none.
    const toolTurns = seen.filter((turn) => turn.channels.includes("memory"));
    expect(modelTurns).toHaveLength(steps);
    expect(toolTurns).toHaveLength(steps);
    // A reader on another connection already sees call_model's step row when its writes are saved.
    modelTurns.forEach((turn, i) => expect(turn.before[0]).toBe(i + 1));
    // The same for execute_tools: the tool-call row and the stored result are there before its writes.
    toolTurns.forEach((turn, i) => expect(turn.before.slice(1)).toEqual([i + 1, i + 1]));
    close();
  });

  it("commits each record as it is made", async () => {
    const { backend, count, close } = openPair();
    await backend.storage.createThread("t1", user.id);
    await backend.storage.recordRunStart(run);
    expect(count("opspilot_runs")).toBe(1);
    await backend.storage.recordStep(step);
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
});
