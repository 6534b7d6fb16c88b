import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { ChannelSqliteSaver } from "../../src/storage/sqlite-checkpointer.js";
import { afterAll, describe, expect, it } from "vitest";
import { OpsStore } from "../../src/tools/index.js";
import { checkPairing, pairingHolds } from "../../src/graph/pairing.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { KILL_POINTS } from "../fixtures/kill-points.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-crash-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface ChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  output?: { threadId: string; events: RunEvent[] };
}

function child(mode: string, dbPath: string, threadId = "-", killPoint = "none"): ChildResult {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "test/fixtures/child-run.ts", mode, dbPath, threadId, killPoint],
    { encoding: "utf8", timeout: 60_000 },
  );
  const line = result.stdout.trim().split("\n").filter(Boolean).at(-1);
  if (result.status !== 0 && result.signal === null) throw new Error(`child ${mode} failed: ${result.stderr}`);
  return { status: result.status, signal: result.signal, output: line ? JSON.parse(line) : undefined };
}

async function finalState(dbPath: string, threadId: string) {
  const db = new BetterSqlite3(dbPath);
  try {
    const snapshot = await new ChannelSqliteSaver(db).getTuple({ configurable: { thread_id: threadId } });
    const restarts = new OpsStore(db).countActions({
      action: "restart",
      service: "payment-service",
      environment: "prod",
    });
    return {
      messages: (snapshot?.checkpoint.channel_values.messages ??
        []) as import("@langchain/core/messages").BaseMessage[],
      restarts,
    };
  } finally {
    db.close();
  }
}

describe("across processes", () => {
  it("resumes in a second process a run that paused in the first", async () => {
    const dbPath = join(directory, "cross.sqlite");
    const first = child("pause-params", dbPath);
    expect(first.output!.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
    const second = child("resume-params", dbPath, first.output!.threadId);
    expect(second.output!.events.map((event) => event.type)).toEqual([
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(second.output!.events.at(-1)).toMatchObject({ stopReason: "final_answer" });
    const { messages } = await finalState(dbPath, first.output!.threadId);
    expect(messages).toHaveLength(5);
    expect(pairingHolds(checkPairing(messages))).toBe(true);
  });
});

describe("crash safety of writes", () => {
  const expected: Record<(typeof KILL_POINTS)[number], { restarts: number; observation: string }> = {
    "before-journal": { restarts: 1, observation: "ok" },
    "in-tool-before-effect": { restarts: 0, observation: "outcome_unknown" },
    "in-tool-after-effect": { restarts: 1, observation: "outcome_unknown" },
    "after-journal-finish": { restarts: 1, observation: "ok" },
    "after-checkpoint": { restarts: 1, observation: "ok" },
  };

  it.each(KILL_POINTS)("never applies the restart twice when killed at %s", async (killPoint) => {
    const dbPath = join(directory, `${killPoint}.sqlite`);
    const paused = child("pause-risky", dbPath);
    const threadId = paused.output!.threadId;
    expect(paused.output!.events.find((event) => event.type === "loop_interrupt")).toMatchObject({
      interruptType: "confirm_risky",
    });

    const killed = child("resume-risky", dbPath, threadId, killPoint);
    expect(killed.signal).toBe("SIGKILL");
    const recovered = child("recover", dbPath, threadId);
    expect(recovered.output!.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });

    const { messages, restarts } = await finalState(dbPath, threadId);
    expect(restarts).toBe(expected[killPoint].restarts);
    const observation = JSON.parse(String(messages.find((message) => message.getType() === "tool")!.content));
    expect(observation.ok ? "ok" : observation.errorCode).toBe(expected[killPoint].observation);
    expect(pairingHolds(checkPairing(messages))).toBe(true);
    expect(messages.at(-1)!.getType()).toBe("ai");
  });
});
