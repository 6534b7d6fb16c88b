import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { OpsStore } from "../../src/demo/index.js";
import { checkPairing, pairingHolds } from "../../src/graph/calls/pairing.js";
import { CHECKPOINT_KILL_POINTS, KILL_POINTS } from "../fixtures/kill-points.js";
import { CRASH_OUTCOMES, crashAndSettle, runChild } from "../fixtures/crash-recovery.js";
import { latestMessages } from "../fixtures/checkpoints.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-crash-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const child = (mode: string, dbPath: string, threadId = "-", killPoint = "none") =>
  runChild({ dbPath }, mode, threadId, killPoint);

async function finalState(dbPath: string, threadId: string) {
  const db = new BetterSqlite3(dbPath);
  try {
    const messages = await latestMessages(new SqliteSaver(db), threadId);
    const restarts = await new OpsStore(db).countActions({
      action: "restart",
      service: "payment-service",
      environment: "prod",
    });
    return {
      messages,
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
  it.each([...KILL_POINTS, ...CHECKPOINT_KILL_POINTS])(
    "leaves a thread the user can act on, and applies the restart at most once, when killed at %s",
    async (killPoint) => {
      const outcome = await crashAndSettle({ dbPath: join(directory, `${killPoint}.sqlite`) }, killPoint);
      expect(outcome).toEqual(CRASH_OUTCOMES[killPoint]);
    },
  );
});
