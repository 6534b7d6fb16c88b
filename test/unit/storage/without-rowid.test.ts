import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { readSteps, scriptedLoop } from "../../fixtures/read-steps.js";

const directories: string[] = [];

function tempFile(): string {
  const directory = mkdtempSync(join(tmpdir(), "without-rowid-"));
  directories.push(directory);
  return join(directory, "db.sqlite");
}

/** Tables of the file whose definition says WITHOUT ROWID. */
function withoutRowid(path: string): string[] {
  const db = new BetterSqlite3(path, { readonly: true });
  const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
    name: string;
    sql: string;
  }>;
  db.close();
  return rows.filter((row) => /WITHOUT ROWID/i.test(row.sql)).map((row) => row.name);
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Runs the loop for two steps on a thread, then compacts it as a run's end does (latest checkpoint only), and reads it back. */
async function runAndCompact(path: string) {
  const backend = openSqlite(path);
  const { graph } = scriptedLoop(backend, readSteps(2), { keepHistory: false });
  await backend.storage.createThread("t1", "tester");
  const config = { configurable: { thread_id: "t1", userId: "tester", role: "operator" } };
  await graph.invoke({ messages: [new HumanMessage("go")] }, config);
  const compacted = await backend.storage.compactThread("t1");
  const state = await graph.getState(config);
  backend.close();
  return { state, compacted };
}

describe("the tables a step writes", () => {
  it("are WITHOUT ROWID in a new file where their rows are small, and compaction keeps the latest state", async () => {
    const path = tempFile();
    const { state, compacted } = await runAndCompact(path);
    expect(withoutRowid(path)).toEqual(["opspilot_steps", "opspilot_usage"]);
    expect(state.values.messages.at(-1).content).toBe("Done.");
    // The input checkpoints, four nodes a step for two steps, then the answer: all but the latest go.
    expect(compacted.checkpoints).toBe(2 + 4 * 2);
  });

  it("stay as they are in a file made before, which keeps working, compaction included", async () => {
    const path = tempFile();
    const old = new BetterSqlite3(path);
    // LangGraph's SqliteSaver makes its own tables; opspilot's steps table as it was first made.
    await new SqliteSaver(old).getTuple({ configurable: { thread_id: "none" } });
    old.exec(`CREATE TABLE opspilot_steps (
      run_id TEXT NOT NULL, step INTEGER NOT NULL, latency_ms INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL, tool_calls INTEGER NOT NULL, cost_usd REAL, PRIMARY KEY (run_id, step));`);
    old.close();
    const { state, compacted } = await runAndCompact(path);
    expect(withoutRowid(path)).toEqual(["opspilot_usage"]);
    expect(state.values.messages.at(-1).content).toBe("Done.");
    expect(compacted.checkpoints).toBe(2 + 4 * 2);
  });
});
